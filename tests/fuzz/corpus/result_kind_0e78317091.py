"""Fuzzer reproducer, mode ast: result-kind. result[0]: NumPy returns an ndarray (shape
()), jitaic a float64"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-kind'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = True


def f(a):
    for i in range(3):
        v0 = a + 2.0
    a += np.sin(a)
    if a < 2.0:
        v1 = a[...]
    else:
        v1 = a + 2.0
    return v1, a


def make_args():
    b0 = np.array([
            0.0
        ], dtype='float64').reshape(())
    return (b0,)
