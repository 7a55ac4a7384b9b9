"""Fuzzer reproducer, mode trace: missed-error:ValueError|IndexError: axis N is out of
bounds for array of dimension N. NumPy raises AxisError(0, 0, None)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:ValueError|IndexError: axis N is out of bounds for array of dimension N'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    for i in range(3):
        v0 = a + True
    v1 = a.max(axis=(0, 1), keepdims=True)
    return b, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape(())
    return (b0, b0,)
