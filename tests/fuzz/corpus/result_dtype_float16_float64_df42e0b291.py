"""Fuzzer reproducer, mode ast: result-dtype:float16->float64. result[0]: dtype float64 !=
NumPy's float16"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-dtype:float16->float64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    if a.sum(dtype=np.float64) > 1:
        v0 = a[1:, -1]
    else:
        v0 = a[1:, -1]
    v1 = np.abs(a).max(axis=None) != True
    a[0] = np.isfinite(v1)
    v3 = np.cos(np.arctan2(v0, 2 ** 64))[None]
    v4 = a[..., 1:] % a
    return v3, v3


def make_args():
    b0 = np.array([
            0
        ], dtype='int8').reshape((1, 1, 1))
    return (b0,)
