"""Fuzzer reproducer, mode trace: result-shape. result: NumPy returns a scalar bool, jitaic
an ndarray of shape ()"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-kind'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c, d):
    for i in range(3):
        v0 = a + True
        v1 = np.abs(a)
    v3 = c < 2 ** 31
    v4 = a + True
    k = 0
    while k < 3:
        b[c] += np.abs(a)
        k += 1
    return v3


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape(())
    b1 = np.array([
            False
        ], dtype='bool').reshape((1,))
    b2 = np.array([
            0
        ], dtype='int8').reshape(())
    b3 = np.array([
            0, 0, 0
        ], dtype='int64').reshape((3,))
    return (b0, b1, b2, b3,)
