"""Fuzzer reproducer, mode ast: spurious-error:ValueError: setting an array element with a
sequence.. jitaic raises ValueError('setting an array element with a sequence. at
case_25994_688.py:16 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:ValueError: setting an array element with a sequence.'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    k = 0
    while k < 3 and a > 1:
        a[()] = b.max(keepdims=True)
        k += 1
    return c, a


def make_args():
    b0 = np.array([
            0
        ], dtype='int8').reshape(())
    b1 = np.array([
            False
        ], dtype='bool').reshape((1,))
    b2 = np.array([
            False
        ], dtype='bool').reshape((1, 1))
    return (b0, b1, b2,)
