"""Fuzzer reproducer, mode trace: result-values:bool. result leaf 1 at (): jitaic np.True_,
NumPy np.False_"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-values:bool'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    b >>= np.abs(np.abs((a + True)))
    v0 = a[()]
    v1 = b + 1
    a[()] = b * 64
    v2 = np.abs(a)
    v3 = a + True
    return v3, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape(())
    b1 = np.array([
            -9223372036854775808
        ], dtype='int64').reshape((1, 1))
    return (b0, b1,)
