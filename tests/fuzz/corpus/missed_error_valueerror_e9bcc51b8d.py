"""Fuzzer reproducer, mode trace: missed-error:ValueError: zero-size array to reduction
operation minimum which has no identity. NumPy raises ValueError('zero-size array to
reduction operation minimum which has no identity')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:ValueError: zero-size array to reduction operation minimum which has no identity'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    v1 = a + True
    v2 = a[c[0]:].min(axis=None, keepdims=True)
    return v1, a


def make_args():
    b0 = np.array([
            False, False
        ], dtype='bool').reshape((2,))
    b1 = np.array([
            2, 3
        ], dtype='int64').reshape((2,))
    return (b0, b0, b1,)
