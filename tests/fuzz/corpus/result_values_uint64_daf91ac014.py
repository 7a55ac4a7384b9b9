"""Fuzzer reproducer, mode trace: result-values:uint64. result leaf 0 at (0, 1): jitaic
np.uint64(18446744073709551615), NumPy np.uint64(0)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-values:uint64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    b **= c[-1]
    return b, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape(())
    b1 = np.array([
            0, 9223372036854775808, 0, 0, 0, 0, 0, 0
        ], dtype='uint64').reshape((4, 2))
    return (b0, np.asfortranarray(b1), np.asfortranarray(b1)[::-1],)
