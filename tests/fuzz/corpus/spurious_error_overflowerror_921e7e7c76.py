"""Fuzzer reproducer, mode ast: spurious-error:OverflowError: Python integer N out of
bounds for intN. jitaic raises OverflowError('Python integer 300 out of bounds for int8
at case_20638_516.py:16 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:OverflowError: Python integer N out of bounds for intN'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    for i in range(3):
        v0 = a + True
        v1 = np.clip(i, 300, np.int8(-128)) + 1
    return b, b


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape((1,))
    b1 = np.array([
            False
        ], dtype='bool').reshape(())
    return (b0, b1,)
