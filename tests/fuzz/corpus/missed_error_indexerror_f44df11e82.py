"""Fuzzer reproducer, mode trace: missed-error:IndexError. NumPy raises IndexError('index 0
is out of bounds for axis 0 with size 0')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:IndexError'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c, d):
    v0 = a + True
    v1 = b[d]
    return v0, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape(())
    b1 = np.array([

        ], dtype='bool').reshape((0, 0))
    b2 = np.array([
            False
        ], dtype='bool').reshape(())
    b3 = np.array([
            0
        ], dtype='int64').reshape(())
    return (b0, b1, b2, b3,)
