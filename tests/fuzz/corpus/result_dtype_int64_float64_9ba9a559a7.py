"""Fuzzer reproducer, mode ast: result-dtype:int64->float64. result[0]: dtype float64 !=
NumPy's int64

The loop runs 0 times and would leave v0 int64, where an iteration makes it
float64: jitaic now refuses that at run time (UnsupportedError naming v0)."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-dtype:int64->float64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c, d):
    v0 = np.abs(d)
    for i in range(v0[0]):
        v0 = a + 0.5
    return v0, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape((1,))
    b1 = np.array([
            False
        ], dtype='bool').reshape(())
    b2 = np.array([
            False
        ], dtype='bool').reshape(())
    b3 = np.array([
            0
        ], dtype='int64').reshape((1,))
    return (b0, b1, b2, b3,)
