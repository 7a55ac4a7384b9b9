"""Fuzzer reproducer, mode ast: missed-error:ValueError. NumPy raises ValueError('setting
an array element with a sequence.')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:ValueError'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = True


def f(a):
    a[0] = np.sin(a)
    return a


def make_args():
    b0 = np.array([
            0.0
        ], dtype='float64').reshape(())
    return (np.asfortranarray(b0),)
