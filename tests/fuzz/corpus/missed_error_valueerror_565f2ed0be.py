"""Fuzzer reproducer, mode trace: missed-error:ValueError: operands could not be broadcast
together with shapes (shape) (shape) (shape) . NumPy raises ValueError('operands could
not be broadcast together with shapes (2,) (2,) (0,) ')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:ValueError: operands could not be broadcast together with shapes (shape) (shape) (shape) '
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    v0 = np.abs(a)
    v1 = b + 1j
    v2 = a + a
    for i in range(3):
        v3 = np.abs(a)
    v5 = a[c:]
    v6 = np.where(np.abs(a) > True, np.abs(a), v5)
    return v5, a


def make_args():
    b0 = np.array([
            False, False
        ], dtype='bool').reshape((2,))
    b1 = np.array([
            complex(0.0, 0.0)
        ], dtype='complex64').reshape(())
    b2 = np.array([
            3
        ], dtype='int64').reshape(())
    return (b0, b1, b2,)
