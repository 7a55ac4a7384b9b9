"""Fuzzer reproducer, mode trace: wrong-error:IndexError->ShapeError. NumPy raises
IndexError('index 0 is out of bounds for axis 0 with size 0'), jitaic ShapeError('could
not broadcast input array from shape (0, 0) into shape (0,) (in dyn_setitem) at
case_23818_587.py:17 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:IndexError->ShapeError: could not broadcast input array from shape (shape) into shape (shape)'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c, d):
    v2 = np.sqrt(a)
    for i in range(3):
        v3 = a + 1
    b[a] = np.where(np.abs(a) > 1, np.abs(a), b)
    return v2


def make_args():
    b0 = np.array([
            0
        ], dtype='int32').reshape(())
    b1 = np.array([

        ], dtype='bool').reshape((0, 0))
    b2 = np.array([
            False
        ], dtype='bool').reshape(())
    return (b0, b1, b1, b2,)
