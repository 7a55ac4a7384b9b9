"""Fuzzer reproducer, mode trace: wrong-error:IndexError->OverflowError: Python integer out
of bounds for intN. NumPy raises IndexError('index 2 is out of bounds for axis 0 with
size 1'), jitaic OverflowError('Python integer out of bounds for int8 at
case_27572_240.py:14 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:IndexError->OverflowError: Python integer out of bounds for intN'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    a[c] = (-c)[0]
    return c, c


def make_args():
    b0 = np.array([
            0
        ], dtype='int8').reshape((1, 1))
    b1 = np.array([
            2, 0
        ], dtype='uint8').reshape((2,))
    return (b0, b0, b1,)
