"""Fuzzer reproducer, mode ast: result-dtype:complex128->int64. result[0]: dtype int64 !=
NumPy's complex128"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-dtype:complex128->int64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = True


def f(a, b):
    v0 = (a + 2.0) + 2.0
    v1 = ((a + 2.0) + 2.0) + 2.0
    for i in range(1):
        v1 = v0
        v0 = i
    for i in range(3):
        v2 = a + 2.0
    return v1, a


def make_args():
    b0 = np.array([
            complex(0.0, 0.0)
        ], dtype='complex128').reshape(())
    b1 = np.array([
            complex(0.0, 0.0)
        ], dtype='complex128').reshape(())
    return (b0, b1,)
