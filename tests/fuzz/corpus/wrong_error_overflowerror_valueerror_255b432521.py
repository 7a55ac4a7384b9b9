"""Fuzzer reproducer, mode ast: wrong-error:OverflowError->ValueError: could not broadcast
input array from shape (shape) into shape (shape). NumPy raises OverflowError('Python
int too large to convert to C long'), jitaic ValueError('could not broadcast input array
from shape (0, 0) into shape (0,) (in dyn_setitem) at case_8897_224.py:16 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:OverflowError->ValueError: could not broadcast input array from shape (shape) into shape (shape)'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c, d):
    for i in range(3):
        v0 = a + True
        a[c] = np.abs(a)
    return d, a


def make_args():
    b0 = np.array([

        ], dtype='bool').reshape((0, 0))
    b1 = np.array([
            18446744073709551615
        ], dtype='uint64').reshape(())
    b2 = np.array([

        ], dtype='bool').reshape((0,))
    return (b0, b0, b1, b2,)
