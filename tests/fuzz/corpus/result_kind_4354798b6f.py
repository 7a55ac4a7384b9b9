"""Fuzzer reproducer, mode ast: result-structure. result: NumPy returns an ndarray (shape
()), jitaic a bool"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-kind'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    if a > 1:
        v0 = a + True
    else:
        v0 = a
    return v0


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape(())
    return (b0, b0,)
