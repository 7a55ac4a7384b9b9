"""Fuzzer reproducer, mode trace: wrong-error:TypeError->ShapeError. NumPy raises
UFuncTypeError(<ufunc 'add'>, 'same_kind', dtype('float64'), dtype('int64'), 2), jitaic
ShapeError('operands could not be broadcast together with shapes (3,) (1, 2) (in add) at
case_23613_404.py:14 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:TypeError->ShapeError: operands could not be broadcast together with shapes (shape) (shape)'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c, d):
    d += (a + True) + a.astype(np.float64)
    return d


def make_args():
    b0 = np.array([
            False, False
        ], dtype='bool').reshape((1, 2))
    b1 = np.array([
            False
        ], dtype='bool').reshape(())
    b2 = np.array([
            False
        ], dtype='bool').reshape((1,))
    b3 = np.array([
            0, 0, 0
        ], dtype='int64').reshape((3,))
    return (b0, b1, b2, b3,)
