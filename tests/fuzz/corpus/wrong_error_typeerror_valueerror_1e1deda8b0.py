"""Fuzzer reproducer, mode trace: wrong-error:TypeError->ValueError: dynamic indices must
be integer scalars, one per dynamic entry. NumPy raises TypeError('only integer scalar
arrays can be converted to a scalar index'), jitaic ValueError('dynamic indices must be
integer scalars, one per dynamic entry')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:TypeError->ValueError: dynamic indices must be integer scalars, one per dynamic entry'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    v0 = b[b[0]:b[0] + 2]
    for i in range(3):
        v1 = a + True
    v2 = a[v0:]
    return v0


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape((1,))
    b1 = np.array([
            -1, 0
        ], dtype='int64').reshape((2,))
    return (b0, b1,)
