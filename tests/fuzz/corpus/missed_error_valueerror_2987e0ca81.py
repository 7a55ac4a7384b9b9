"""Fuzzer reproducer, mode trace: missed-error:ValueError. NumPy raises ValueError('setting
an array element with a sequence.')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:ValueError'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    b[()] = np.abs(a)
    return b, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape((1,))
    b1 = np.array([
            0
        ], dtype='int64').reshape(())
    return (b0, b1,)
