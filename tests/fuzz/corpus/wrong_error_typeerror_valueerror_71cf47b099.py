"""Fuzzer reproducer, mode trace: wrong-error:TypeError->ValueError: setting an array
element with a sequence.. NumPy raises TypeError('only 0-dimensional arrays can be
converted to Python scalars'), jitaic ValueError('setting an array element with a
sequence. at case_22260_233.py:14 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:TypeError->ValueError: setting an array element with a sequence.'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    a[0] += np.abs(a)
    return a


def make_args():
    b0 = np.array([
            complex(0.0, 0.0)
        ], dtype='complex64').reshape((1,))
    return (b0,)
