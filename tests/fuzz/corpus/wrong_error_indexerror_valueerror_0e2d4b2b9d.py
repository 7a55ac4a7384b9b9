"""Fuzzer reproducer, mode ast: wrong-error:IndexError->ValueError: setting an array
element with a sequence.. NumPy raises IndexError('index 1 is out of bounds for axis 0
with size 1'), jitaic ValueError('setting an array element with a sequence. at
case_22260_375.py:16 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:IndexError->ValueError: setting an array element with a sequence.'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    for i in range(3):
        v0 = np.abs(a)
    a[()] += b[b]
    return b, a


def make_args():
    b0 = np.array([
            0
        ], dtype='int8').reshape(())
    b1 = np.array([
            1
        ], dtype='int64').reshape((1,))
    return (b0, b1,)
