"""Fuzzer reproducer, mode trace: spurious-error:IndexError. jitaic raises IndexError('a
slice of length 2 does not fit axis 0 of size 0 at case_22130_1133.py:15 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:IndexError: a slice of length N does not fit axis N of size N'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    v0 = np.abs(a)
    a[b:b + 2] = a + True
    return v0, a


def make_args():
    b0 = np.array([

        ], dtype='bool').reshape((0, 0))
    b1 = np.array([
            0
        ], dtype='int8').reshape(())
    b2 = np.array([

        ], dtype='bool').reshape((0,))
    return (b0, b1, b2,)
