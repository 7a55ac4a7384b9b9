"""Fuzzer reproducer, mode trace: wrong-error:IndexError->ValueError: setting an array
element with a sequence.. NumPy raises IndexError('index 2 is out of bounds for axis 0
with size 2'), jitaic ValueError('setting an array element with a sequence. at
case_7183_366.py:14 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:IndexError->ValueError: setting an array element with a sequence.'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    a[c] = a + True
    return c, a


def make_args():
    b0 = np.array([
            False, False
        ], dtype='bool').reshape((2,))
    b1 = np.array([
            False
        ], dtype='bool').reshape(())
    b2 = np.array([
            2
        ], dtype='int64').reshape(())
    return (b0, b1, b2,)
