"""Fuzzer reproducer, mode trace: wrong-error:IndexError->ShapeError. NumPy raises
IndexError('index 591 is out of bounds for axis 1 with size 4'), jitaic
ShapeError('could not broadcast input array from shape (3,) into shape (None, 4) (in
dyn_setitem) at case_23795_445.py:18 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:IndexError->ShapeError: could not broadcast input array from shape (shape) into shape (None, N)'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c, d):
    v1 = np.abs(a)
    v2 = np.where(a > 1, a, c)[0]
    for i in range(3):
        v3 = a.astype(np.float64)
    v2[b:] = v2[:, a]
    return b, a


def make_args():
    b0 = np.array([
            591
        ], dtype='uint64').reshape(())
    b1 = np.array([
            False, False, False, False, False, False, False, False, False, False,
            False, False
        ], dtype='bool').reshape((1, 3, 4))
    b2 = np.array([
            False, False, False, True
        ], dtype='bool').reshape((4,))
    return (b0, b0, b1, b2,)
