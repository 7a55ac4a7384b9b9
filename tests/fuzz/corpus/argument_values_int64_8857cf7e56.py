"""Fuzzer reproducer, mode trace: argument-values:int64. argument leaf 0 at (0, 0): jitaic
np.int64(-9223372036854775808), NumPy np.int64(-2659239065858430293)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'argument-values:int64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    for i in range(1):
        v0 = np.isnan(np.abs(a))
        a **= c[i]
    v1 = np.abs(b)
    return v1, b


def make_args():
    b0 = np.array([
            3
        ], dtype='int64').reshape((1, 1))
    b1 = np.array([
            complex(-0.0, 0.0)
        ], dtype='complex64').reshape((1, 1, 1))
    b2 = np.array([
            2147483647, 0
        ], dtype='int32').reshape((2,))
    return (b0, b1, b2[::2],)
