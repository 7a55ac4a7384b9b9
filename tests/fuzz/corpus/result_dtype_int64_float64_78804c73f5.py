"""Fuzzer reproducer, mode ast: result-dtype:int64->float64. result[0]: dtype float64 !=
NumPy's int64

The loop runs 0 times and would leave v0 int64, where an iteration makes it
float32: jitaic now refuses that at run time (UnsupportedError naming v0)."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-dtype:int64->float64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    v0 = a[0]
    a[0] = a.astype(np.float64)
    v1 = np.argmax(a, axis=None)
    k = 0
    while k < 0 and v1 >= np.uint64(2 ** 64 - 1):
        v0[v1:] = np.sin(k)
        v0 = v0.astype(np.float32)
        k += 1
    return v0, v0


def make_args():
    b0 = np.array([
            -2, 0, 5
        ], dtype='int64').reshape((1, 1, 3))
    return (b0,)
