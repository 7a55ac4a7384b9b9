"""Fuzzer reproducer, mode trace: wrong-error:IndexError->TypeError: only integer scalar
arrays can be converted to a scalar index. NumPy raises IndexError('too many indices for
array: array is 0-dimensional, but 1 were indexed'), jitaic TypeError('only integer
scalar arrays can be converted to a scalar index at case_19022_740.py:19 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:IndexError->TypeError: only integer scalar arrays can be converted to a scalar index'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    v0 = b[1:]
    for i in range(3):
        v1 = a + True
    for i in range(3):
        v2 = a + True
    a[v0:] = np.abs(a)
    return v0


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape(())
    b1 = np.array([
            0
        ], dtype='int64').reshape((1,))
    return (b0, b1,)
