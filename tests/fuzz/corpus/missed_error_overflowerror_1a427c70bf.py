"""Fuzzer reproducer, mode ast: missed-error:OverflowError: Python integer N out of bounds
for uintN. NumPy raises OverflowError('Python integer -1 out of bounds for uint64')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:OverflowError: Python integer N out of bounds for uintN'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c, d):
    if a.sum(dtype=np.float64) > 1:
        a[a > 0] = True
    else:
        v0 = a + a
    for i in range(3):
        v1 = (a + 2) - 1
        a[a > 0] = True
    b[b > 0] = -1
    return d


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape((1, 1, 1))
    b1 = np.array([

        ], dtype='uint64').reshape((0, 1, 0))
    b2 = np.array([

        ], dtype='bool').reshape((0,))
    return (b0, b1, b1, b2,)
