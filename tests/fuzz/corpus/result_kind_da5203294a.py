"""Fuzzer reproducer, mode ast: result-kind. result: NumPy returns an ndarray (shape ()),
jitaic a float64"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-kind'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = True


def f(a, b, c):
    v0 = np.sin(a)
    v1 = np.where(a > 2.0, a, a)
    a[()] = np.sin(a)
    for i in range(3):
        v2 = a - 2.0
    if b > 2.0:
        v1 = v0
    else:
        v3 = np.sum(a, axis=None, keepdims=True)
    return v1


def make_args():
    b0 = np.array([
            0.0
        ], dtype='float64').reshape(())
    b1 = np.array([
            0.0
        ], dtype='float64').reshape(())
    b2 = np.array([
            0.0
        ], dtype='float64').reshape(())
    return (b0, b1, b2,)
