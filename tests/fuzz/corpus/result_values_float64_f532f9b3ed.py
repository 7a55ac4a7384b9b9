"""Fuzzer reproducer, mode ast: result-values:float64. result leaf 1 at (): jitaic
np.float64(nan), NumPy np.float64(0.0)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-values:float64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    if a > 0.5:
        v0 = a + 0.5
    else:
        v0 = a
    v0[()] = c[0]
    return v0, a


def make_args():
    b0 = np.array([
            nan
        ], dtype='float64').reshape(())
    b1 = np.array([
            False
        ], dtype='bool').reshape((1,))
    return (b0, b0, b1,)
