"""Fuzzer reproducer, mode ast: result-dtype:int64->bool. result[1]: dtype bool != NumPy's
int64"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-dtype:int64->bool'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    v0 = a.sum(axis=None)
    a += a + 1
    for i in range(3):
        a[v0] += b + True
    a[::-1] = np.maximum(np.abs(a), 1)
    k = 0
    while k < 3 and b == 1:
        v1 = np.left_shift(k, k)
        v0 = k >= 7
        k += 1
    return b, v0


def make_args():
    b0 = np.array([
            1, 0, 0
        ], dtype='int8').reshape((3,))
    b1 = np.array([
            False
        ], dtype='bool').reshape(())
    return (b0, b1,)
