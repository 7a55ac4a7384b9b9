"""Fuzzer reproducer, mode trace: missed-error:OverflowError: Python integer N out of
bounds for intN. NumPy raises OverflowError('Python integer 128 out of bounds for int8')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:OverflowError: Python integer N out of bounds for intN'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    v0 = a.sum(axis=None)
    a[v0:] = np.abs(v0)
    return v0, a


def make_args():
    b0 = np.array([
            -128, -128
        ], dtype='int8').reshape((2, 1))
    return (b0[::2],)
