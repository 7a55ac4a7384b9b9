"""Fuzzer reproducer, mode ast: spurious-error:IndexError: too many indices for array:
array is N-dimensional, but N were indexed. jitaic raises IndexError('too many indices
for array: array is 0-dimensional, but 1 were indexed at case_26879_634.py:16 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:IndexError: too many indices for array: array is N-dimensional, but N were indexed'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = True


def f(a, b):
    k = 0
    while k < 3 and a > 2.0:
        a[k] += a + 2.0
        k += 1
    return b, a


def make_args():
    b0 = np.array([
            0.0
        ], dtype='float64').reshape(())
    return (b0, b0,)
