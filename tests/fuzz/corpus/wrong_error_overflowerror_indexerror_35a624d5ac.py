"""Fuzzer reproducer, mode trace: wrong-error:OverflowError->IndexError: index N is out of
bounds for axis N with size N. NumPy raises OverflowError('Python int too large to
convert to C long'), jitaic IndexError('index 9223372036854775807 is out of bounds for
axis 0 with size 0 at case_6045_340.py:14 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:OverflowError->IndexError: index N is out of bounds for axis N with size N'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    a[c[0]] += np.abs(a)
    return c, a


def make_args():
    b0 = np.array([

        ], dtype='bool').reshape((0,))
    b1 = np.array([
            18446744073709551615
        ], dtype='uint64').reshape((1,))
    return (b0, b0, b1,)
