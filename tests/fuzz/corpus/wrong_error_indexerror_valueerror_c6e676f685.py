"""Fuzzer reproducer, mode trace: wrong-error:IndexError->ValueError. NumPy raises
IndexError('index 1 is out of bounds for axis 0 with size 1'), jitaic
ValueError('setting an array element with a sequence. at case_23402_220.py:14 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:IndexError->ValueError: setting an array element with a sequence.'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    a[a[0]] += np.abs(a)
    return b


def make_args():
    b0 = np.array([
            1
        ], dtype='int8').reshape((1,))
    return (b0, b0,)
