"""Fuzzer reproducer, mode ast: spurious-error:IndexError: index N is out of bounds for
axis N with size N. jitaic raises IndexError('index 1 is out of bounds for axis 1 with
size 1 at case_26384_450.py:16 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:IndexError: index N is out of bounds for axis N with size N'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    k = 0
    while k < 3 and a > 1:
        b[0, 1] = np.where(a > True, a, a)
        k += 1
    return c, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape(())
    b1 = np.array([
            False
        ], dtype='bool').reshape((1, 1))
    b2 = np.array([
            False
        ], dtype='bool').reshape(())
    return (b0, b1, b2,)
