"""Fuzzer reproducer, mode ast: result-values:uint8. result leaf 0 at (1, 0, 0): jitaic
np.uint8(1), NumPy np.uint8(2)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-values:uint8'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    v0 = (a + a).sum(axis=-3, keepdims=True, dtype=np.float64)
    if a.max() > 1:
        v1 = np.where(a > 2 ** 31, a, a)
    else:
        v1 = a.max(axis=None, keepdims=True)
    a[a > 0] = 1
    if a.all() > 1:
        v2 = a + 1
    else:
        v2 = a.astype(np.float64)
    return v1


def make_args():
    b0 = np.array([
            0, 2
        ], dtype='uint8').reshape((2, 1, 1))
    b1 = np.array([
            False
        ], dtype='bool').reshape((1, 1))
    return (b0, b1,)
