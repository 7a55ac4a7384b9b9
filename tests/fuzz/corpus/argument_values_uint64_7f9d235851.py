"""Fuzzer reproducer, mode ast: argument-values:uint64. argument leaf 0 at (): jitaic
np.uint64(4), NumPy np.uint64(8)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'argument-values:uint64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    v0 = np.abs(a)
    v1 = np.abs(a)
    k = 0
    while k < 3:
        b += np.abs(a)
        k += 1
    v2 = np.abs(a)
    return c


def make_args():
    b0 = np.array([
            1
        ], dtype='uint64').reshape(())
    b1 = np.array([
            0
        ], dtype='int64').reshape(())
    return (b0, b0, b1,)
