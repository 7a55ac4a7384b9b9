"""Fuzzer reproducer, mode trace: spurious-error:IndexError. jitaic raises IndexError('a
slice of length 2 does not fit axis 0 of size 1 at case_23795_1075.py:17 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:IndexError: a slice of length N does not fit axis N of size N'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    a[()] += np.max(a, axis=0, keepdims=True)
    c[c > 0] = 1
    v2 = a + a
    c[a:a + 2] += a + a
    return v2, a


def make_args():
    b0 = np.array([
            1
        ], dtype='int8').reshape(())
    b1 = np.array([
            0
        ], dtype='int64').reshape((1,))
    return (b0, b0, b1,)
