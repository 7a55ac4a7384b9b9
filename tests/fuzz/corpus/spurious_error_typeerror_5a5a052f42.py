"""Fuzzer reproducer, mode trace: spurious-error:TypeError: '*' object cannot be
interpreted as an integer. jitaic raises TypeError("'NoneType' object cannot be
interpreted as an integer")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "spurious-error:TypeError: '*' object cannot be interpreted as an integer"
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c, d):
    v0 = b[d:].astype(np.float64)
    for i in range(v0.shape[0]):
        v1 = np.abs(a)
    return v0, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape(())
    b1 = np.array([
            False, False
        ], dtype='bool').reshape((2,))
    b2 = np.array([
            0
        ], dtype='int8').reshape(())
    return (b0, b1[::2], b1[::2], b2,)
