"""Fuzzer reproducer, mode trace: result-values:int32. result leaf 1 at (0, 2, 1): jitaic
np.int32(1), NumPy np.int32(2147483647)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-values:int32'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    for i in range(3):
        a **= np.abs(a)
        v0 = np.abs(a)
    v3 = a.astype(np.bool_)
    return v3, a


def make_args():
    b0 = np.array([
            0, 0, 0, 0, 0, 2147483647, 0, 0
        ], dtype='int32').reshape((1, 4, 2))
    return (b0,)
