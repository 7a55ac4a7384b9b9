"""Fuzzer reproducer, mode trace: missed-error:IndexError. NumPy raises IndexError('index 1
is out of bounds for axis 0 with size 1')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:IndexError'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    for i in range(3):
        v0 = np.abs(a)
    for i in range(3):
        v1 = a * True
    v2 = a[b]
    return b, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape((1,))
    b1 = np.array([
            1
        ], dtype='int8').reshape(())
    return (b0, b1,)
