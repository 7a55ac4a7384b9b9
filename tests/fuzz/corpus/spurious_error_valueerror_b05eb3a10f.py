"""Fuzzer reproducer, mode ast: spurious-error:ValueError. jitaic raises
ValueError('setting an array element with a sequence. at case_23047_158.py:14 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:ValueError: setting an array element with a sequence.'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    a[()] += b + True
    return b, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape(())
    b1 = np.array([
            False
        ], dtype='bool').reshape((1,))
    return (b0, b1,)
