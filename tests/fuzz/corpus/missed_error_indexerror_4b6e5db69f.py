"""Fuzzer reproducer, mode ast: missed-error:IndexError: index N is out of bounds for axis
N with size N. NumPy raises IndexError('index 0 is out of bounds for axis 0 with size
0')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:IndexError: index N is out of bounds for axis N with size N'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    for i in range(3):
        v0 = a[i]
    return b, a


def make_args():
    b0 = np.array([

        ], dtype='bool').reshape((0,))
    return (b0, b0,)
