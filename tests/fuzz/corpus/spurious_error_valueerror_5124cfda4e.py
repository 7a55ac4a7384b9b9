"""Fuzzer reproducer, mode trace: spurious-error:ValueError: Integers to negative integer
powers are not allowed.. jitaic raises ValueError('Integers to negative integer powers
are not allowed. at case_6129_283.py:14 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:ValueError: Integers to negative integer powers are not allowed.'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    c[b:b + 2] **= b[()]
    return c, c


def make_args():
    b0 = np.array([

        ], dtype='bool').reshape((0,))
    b1 = np.array([
            -1
        ], dtype='int8').reshape(())
    b2 = np.array([
            0, 0
        ], dtype='int64').reshape((2,))
    return (b0, b1, b2,)
