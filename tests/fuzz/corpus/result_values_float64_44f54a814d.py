"""Fuzzer reproducer, mode trace: result-values:float64. result leaf 1 at (): jitaic
np.float64(0.0), NumPy np.float64(-0.0)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-values:float64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    k = 0
    while k < 3:
        v0 = np.negative(a)
        v1 = a + a
        k += 1
    v2 = a.std(axis=None, ddof=1)
    v2 = np.clip(((-v2)), -0.0, 0.0)
    v3 = np.abs(a)
    return v3, v2


def make_args():
    b0 = np.array([
            133124, 698057108, 133124, 4611686018427387904
        ], dtype='int64').reshape((4, 1, 1))
    return (b0,)
