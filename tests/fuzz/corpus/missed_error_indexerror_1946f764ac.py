"""Fuzzer reproducer, mode ast: missed-error:IndexError: index N is out of bounds for axis
N with size N. NumPy raises IndexError('index 1 is out of bounds for axis 0 with size
1')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:IndexError: index N is out of bounds for axis N with size N'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    v0 = a + True
    if a.max() > 1:
        v1 = a[c]
    else:
        v1 = a[c]
    return v0


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape((1, 1))
    b1 = np.array([
            1, 0
        ], dtype='int64').reshape((2,))
    return (b0, b0, b1,)
