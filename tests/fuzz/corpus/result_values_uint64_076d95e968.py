"""Fuzzer reproducer, mode ast: result-values:uint64. result leaf 0 at (0, 0, 0): jitaic
np.uint64(0), NumPy np.uint64(18446744073709551615)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-values:uint64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    k = 0
    while k < 3 and c.var(dtype=np.float64, ddof=1) < np.int8(-128):
        a[b] += a[0]
        a[1:, -1] = k
        k += 1
    a[c[0]:] = a[0]
    v0 = np.sign(np.sum(a.astype(np.int64), axis=0, keepdims=True))
    for i in range(c.shape[0]):
        v0 = np.where(b < 3, b, a)
    return v0


def make_args():
    b0 = np.array([
            18446744073709551615
        ], dtype='uint64').reshape((1, 1, 1))
    b1 = np.array([
            2147483647
        ], dtype='uint64').reshape((1,))
    b2 = np.array([
            6, 6, -1
        ], dtype='int64').reshape((3,))
    return (b0, b1, b2,)
