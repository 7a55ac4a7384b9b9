"""Fuzzer reproducer, mode ast: result-dtype:float32->float64. result[0]: dtype float64 !=
NumPy's float32"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-dtype:float32->float64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    v0 = a.argmax(axis=None)
    k = 0
    while k < 3:
        v2 = (np.abs(a) + True)[c[0]:]
        v0 = a.sum(axis=None, dtype=np.float32)
        k += 1
    return v0, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape((1,))
    b1 = np.array([
            False
        ], dtype='bool').reshape(())
    b2 = np.array([
            1, 0
        ], dtype='int64').reshape((2,))
    return (b0, b1, b2,)
