"""Fuzzer reproducer, mode trace: result-values:complex128. result leaf 0 at (0, 0): jitaic
np.complex128(-inf+infj), NumPy np.complex128(nan+nanj)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-values:complex128'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    v0 = c.prod(axis=(), keepdims=True)
    v1 = np.abs(a) + np.abs(a)
    a[a > 0] = 1j
    v2 = c + True
    v3 = a.astype(np.float64)
    return v0


def make_args():
    b0 = np.array([

        ], dtype='complex128').reshape((0, 0, 0))
    b1 = np.array([
            False
        ], dtype='bool').reshape((1, 1))
    b2 = np.array([
            complex(-inf, inf)
        ], dtype='complex128').reshape((1, 1))
    return (b0, b1, b2,)
