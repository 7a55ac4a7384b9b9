"""Fuzzer reproducer, mode ast: spurious-error:IndexError. jitaic raises IndexError('a
slice of length 2 does not fit axis 0 of size 1 at case_21557_583.py:17 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:IndexError: a slice of length N does not fit axis N of size N'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = True


def f(a, b, c):
    v0 = a + a
    v1 = np.sin(np.sin(a))
    for i in range(3):
        a[i:i + 2] += a.sum(axis=None, keepdims=True)
    return v1, a


def make_args():
    b0 = np.array([
            0.0
        ], dtype='float64').reshape((1,))
    b1 = np.array([
            0.0
        ], dtype='float64').reshape(())
    return (b0, b1, b1,)
