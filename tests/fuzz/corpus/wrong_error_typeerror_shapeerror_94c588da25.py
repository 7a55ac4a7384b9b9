"""Fuzzer reproducer, mode trace: wrong-error:TypeError->ShapeError. NumPy raises
UFuncTypeError(<ufunc 'add'>, 'same_kind', dtype('int16'), dtype('uint8'), 2), jitaic
ShapeError('operands could not be broadcast together with shapes (3,) (1, 4) (in add) at
case_23402_667.py:16 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:TypeError->ShapeError: operands could not be broadcast together with shapes (shape) (shape)'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c, d):
    for i in range(3):
        a[a > 0] = True
    d += a + c
    return d


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape((1, 1))
    b1 = np.array([
            False
        ], dtype='bool').reshape(())
    b2 = np.array([
            1, 0, 0, 0
        ], dtype='int8').reshape((4,))
    b3 = np.array([
            0, 0, 0
        ], dtype='uint8').reshape((3,))
    return (b0, b1, b2, b3,)
