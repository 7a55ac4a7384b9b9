"""Fuzzer reproducer, mode trace: missed-error:TypeError: '*' object does not support item
assignment. NumPy raises TypeError("'numpy.bool' object does not support item
assignment")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "missed-error:TypeError: '*' object does not support item assignment"
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    v0 = np.where(a > True, a, a)
    k = 0
    while k < 3:
        v0 = np.abs(a)
        v0[()] = np.abs(a)
        k += 1
    return v0, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape(())
    b1 = np.array([
            0
        ], dtype='int64').reshape(())
    return (b0, b0, b1,)
