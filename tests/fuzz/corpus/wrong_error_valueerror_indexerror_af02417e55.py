"""Fuzzer reproducer, mode trace: wrong-error:ValueError->IndexError: list index out of
range. NumPy raises ValueError("non-broadcastable output operand with shape () doesn't
match the broadcast shape (1,)"), jitaic IndexError('list index out of range')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:ValueError->IndexError: list index out of range'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    a += a.cumsum(axis=0)
    return c, a


def make_args():
    b0 = np.array([
            0
        ], dtype='int8').reshape(())
    b1 = np.array([
            False
        ], dtype='bool').reshape((1,))
    return (b0, b0, b1,)
