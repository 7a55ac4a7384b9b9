"""Fuzzer reproducer, mode trace: an integer-array index into an axis of size 0, where
the region it selects is empty too (a of shape (0, 0)): NumPy checks the index anyway
and raises IndexError; jitaic's element loops ran no iteration and checked nothing."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:IndexError: index N is out of bounds for axis N with size N'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    a[b] += np.abs(b)
    return c


def make_args():
    b0 = np.array([

        ], dtype='int8').reshape((0, 0))
    b1 = np.array([
            0
        ], dtype='int8').reshape((1,))
    b2 = np.array([
            False
        ], dtype='bool').reshape(())
    return (b0, b1, b2,)
