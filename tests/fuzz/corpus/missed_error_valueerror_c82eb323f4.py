"""Fuzzer reproducer, mode ast: missed-error:ValueError: zero-size array to reduction
operation maximum which has no identity. NumPy raises ValueError('zero-size array to
reduction operation maximum which has no identity')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:ValueError: zero-size array to reduction operation maximum which has no identity'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    for i in range(3):
        v0 = np.abs(a[i:]).max(axis=None, keepdims=True)
    return c, a


def make_args():
    b0 = np.array([

        ], dtype='bool').reshape((0,))
    b1 = np.array([
            False
        ], dtype='bool').reshape(())
    return (b0, b0, b1,)
