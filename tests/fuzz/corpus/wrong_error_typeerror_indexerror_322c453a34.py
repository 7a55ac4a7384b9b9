"""Fuzzer reproducer, mode ast: wrong-error:TypeError->IndexError: a slice of length N does
not fit axis N of size N. NumPy raises UFuncTypeError(<ufunc 'add'>, 'same_kind',
dtype('float64'), dtype('bool'), 2), jitaic IndexError('a slice of length 2 does not fit
axis 0 of size 1 at case_2151_264.py:19 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:TypeError->IndexError: a slice of length N does not fit axis N of size N'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    if a.var(ddof=1) > 1:
        v0 = np.abs(c)
    else:
        v0 = np.abs(a) + True
    for i in range(3):
        a[0] += a[i:i + 2].sum(axis=None, keepdims=True, dtype=np.float64)
    return v0


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape((1, 1, 1))
    b1 = np.array([
            0
        ], dtype='int32').reshape((1,))
    b2 = np.array([
            False
        ], dtype='bool').reshape((1, 1, 1))
    return (b0, b1, b2,)
