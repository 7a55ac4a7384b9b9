"""Fuzzer reproducer, mode ast: wrong-error:OverflowError->IndexError: too many indices for
array: array is N-dimensional, but N were indexed. NumPy raises OverflowError('Python
integer 300 out of bounds for int8'), jitaic IndexError('too many indices for array:
array is 0-dimensional, but 1 were indexed at case_2705_600.py:17 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:OverflowError->IndexError: too many indices for array: array is N-dimensional, but N were indexed'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    if b > 1:
        a[b] += a + True
    if a.sum() > 1:
        b[b] += np.abs(a)
    else:
        a += np.clip(np.abs(b), 300, 1)
    return c, a


def make_args():
    b0 = np.array([

        ], dtype='bool').reshape((0,))
    b1 = np.array([
            0
        ], dtype='int8').reshape(())
    b2 = np.array([
            0
        ], dtype='int64').reshape(())
    return (b0, b1, b2,)
