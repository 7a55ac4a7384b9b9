"""Fuzzer reproducer, mode ast: wrong-error:IndexError->ValueError: setting an array
element with a sequence.. NumPy raises IndexError('index -2 is out of bounds for axis 0
with size 1'), jitaic ValueError('setting an array element with a sequence. at
case_30563_373.py:18 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:IndexError->ValueError: setting an array element with a sequence.'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    if a > 1:
        v0 = a + 1
    else:
        v0 = np.abs(a)
    b[a] = b.sum(axis=None, keepdims=True, dtype=np.float64)
    return v0, a


def make_args():
    b0 = np.array([
            -2
        ], dtype='int8').reshape(())
    b1 = np.array([
            0
        ], dtype='int64').reshape((1,))
    return (b0, b1,)
