"""Fuzzer reproducer, mode trace: wrong-error:IndexError->ShapeError. NumPy raises
IndexError('index 0 is out of bounds for axis 0 with size 0'), jitaic ShapeError('could
not broadcast input array from shape (0, 3, 4) into shape (3, 4) (in dyn_setitem) at
case_23613_770.py:16 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:IndexError->ShapeError: could not broadcast input array from shape (shape) into shape (shape)'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    v0 = np.abs(b[c[0]:])
    v3 = np.isnan(c).astype(np.uint8)
    b[c[0]] = b << c
    return c, v3


def make_args():
    b0 = np.array([
            0
        ], dtype='uint8').reshape(())
    b1 = np.array([

        ], dtype='bool').reshape((0, 3, 4))
    b2 = np.array([
            0, 3, 5, 0
        ], dtype='int8').reshape((4,))
    return (b0, b1, b2,)
