"""Fuzzer reproducer, mode ast: spurious-error:ShapeError: cannot scatter iN[N,N] into the
(shape) elements of iN[N]. jitaic raises ShapeError('cannot scatter i64[1,1] into the
(1,) elements of i64[1] (in scatter) at case_2138_270.py:18 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:ShapeError: cannot scatter iN[N,N] into the (shape) elements of iN[N]'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    if a.sum(dtype=np.float64) > 1:
        v0 = a + True
    else:
        v0 = a + a
    c[c] = np.abs(a)
    return v0


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape((1, 1))
    b1 = np.array([
            False
        ], dtype='bool').reshape((1,))
    b2 = np.array([
            0
        ], dtype='int64').reshape((1,))
    return (b0, b1, b2,)
