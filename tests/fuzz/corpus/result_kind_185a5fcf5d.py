"""Fuzzer reproducer, mode trace: result-kind. result: NumPy returns an ndarray (shape ()),
jitaic a int8"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-kind'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    v0 = np.where(a[a[0]:] > 1, a[a[0]:], a)[..., 0]
    return v0


def make_args():
    b0 = np.array([
            0
        ], dtype='int8').reshape((1,))
    return (b0, b0,)
