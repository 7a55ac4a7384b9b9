"""Fuzzer reproducer, mode ast: result-values:float64. result leaf 0 at (0, 0, 0): jitaic
np.float64(26.0), NumPy np.float64(54.0)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-values:float64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = True


def f(a):
    k = 0
    while k < 3:
        a += a + (a + 2.0)
        v0 = k + 2.0
        k += 1
    v1 = a[0][None]
    if a.sum() > 2.0:
        a += a + 2.0
    else:
        v2 = a - a
    return v1


def make_args():
    b0 = np.array([
            0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        ], dtype='float64').reshape((2, 1, 3))
    return (b0[::-1],)
