"""Fuzzer reproducer, mode ast: spurious-error:OverflowError: Python integer N out of
bounds for intN. jitaic raises OverflowError('Python integer 9223372036854775808 out of
bounds for int64 at case_15866_743.py:18 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:OverflowError: Python integer N out of bounds for intN'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    v0 = a + True
    a[()] = np.abs(a)
    v1 = a + True
    for i in range(3):
        v2 = i + 2 ** 63 - 1
    return v1, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape(())
    return (b0,)
