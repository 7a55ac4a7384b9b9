"""Fuzzer reproducer, mode trace: wrong-error:TypeError->ShapeError. NumPy raises
UFuncTypeError(<ufunc 'add'>, 'same_kind', dtype('int64'), dtype('bool'), 2), jitaic
ShapeError('operands could not be broadcast together with shapes (2,) (3,) (in add) at
case_23795_1590.py:14 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:TypeError->ShapeError: operands could not be broadcast together with shapes (shape) (shape)'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    a[1:] += a + 1
    return c, a


def make_args():
    b0 = np.array([
            False, False, False
        ], dtype='bool').reshape((3,))
    b1 = np.array([
            False
        ], dtype='bool').reshape(())
    return (b0, b0, b1,)
