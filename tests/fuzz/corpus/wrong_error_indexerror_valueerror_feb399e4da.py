"""Fuzzer reproducer, mode trace: wrong-error:IndexError->ValueError: cannot scatter
iN[N,N,N] into the (shape) elements of iN[N]. NumPy raises IndexError('index 0 is out of
bounds for axis 0 with size 0'), jitaic ValueError('cannot scatter i8[0,0,0] into the
(0,) elements of i8[0] (in scatter) at case_13127_426.py:16 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:IndexError->ValueError: cannot scatter iN[N,N,N] into the (shape) elements of iN[N]'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    for i in range(3):
        a[a > 0] = True
    c[c] = np.where(a[c] > True, a[c], a)
    v4 = a[0]
    return c, a


def make_args():
    b0 = np.array([

        ], dtype='bool').reshape((0, 0, 0))
    b1 = np.array([

        ], dtype='bool').reshape((0,))
    b2 = np.array([

        ], dtype='int8').reshape((0,))
    return (b0, b1, b2,)
