"""Fuzzer reproducer, mode trace: missed-error:IndexError: index N is out of bounds for
axis N with size N. NumPy raises IndexError('index 1 is out of bounds for axis 0 with
size 1')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:IndexError: index N is out of bounds for axis N with size N'
KNOWN_FAILURE = None  # fixed: indices selecting an empty region are checked
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c, d):
    for i in range(3):
        a[d] += b + a
    return d, a


def make_args():
    b0 = np.array([

        ], dtype='bool').reshape((1, 0, 0))
    b1 = np.array([

        ], dtype='bool').reshape((0,))
    b2 = np.array([
            False
        ], dtype='bool').reshape((1,))
    b3 = np.array([
            1
        ], dtype='uint8').reshape((1,))
    return (b0, b1, b2, b3,)
