"""Fuzzer reproducer, mode trace: spurious-error:IndexError. jitaic raises
IndexError('index -2147483648 is out of bounds for axis 0 with size 1 at
case_21729_342.py:15 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:IndexError'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c, d):
    d[d > 0] = np.uint64(2 ** 64 - 1)
    v0 = a[d]
    v1 = a.sum(axis=None, keepdims=True, dtype=np.float64) + 0.5
    v2 = a[d]
    return v2


def make_args():
    b0 = np.array([
            0
        ], dtype='int8').reshape(())
    b1 = np.array([
            False
        ], dtype='bool').reshape((1, 1))
    b2 = np.array([
            False, False
        ], dtype='bool').reshape((2, 1))
    b3 = np.array([
            3
        ], dtype='int32').reshape((1,))
    return (np.asfortranarray(b0), b1, b2, b3,)
