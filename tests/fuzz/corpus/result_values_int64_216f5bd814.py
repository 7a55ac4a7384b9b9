"""Fuzzer reproducer, mode ast: result-values:int64. result leaf 0 at (): jitaic
np.int64(0), NumPy np.int64(1)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-values:int64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c, d):
    v0 = b + True
    v1 = b + True
    if c > 1:
        v2 = b[...]
    else:
        v2 = b[...]
    a[a > 0] = 1j
    c[()] += v2 + True
    return v2, a


def make_args():
    b0 = np.array([
            complex(0.0, 0.0)
        ], dtype='complex64').reshape((1, 1, 1))
    b1 = np.array([
            0
        ], dtype='int64').reshape(())
    b2 = np.array([
            False
        ], dtype='bool').reshape(())
    return (b0, b1, b1, b2,)
