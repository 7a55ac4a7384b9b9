"""Fuzzer reproducer, mode trace: wrong-error:IndexError->ValueError: could not broadcast
input array from shape (None, N, N) into shape (shape). NumPy raises IndexError('index
-3 is out of bounds for axis 0 with size 1'), jitaic ValueError('could not broadcast
input array from shape (None, 1, 1) into shape (2, 1) at case_22542_350.py:15 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:IndexError->ValueError: could not broadcast input array from shape (None, N, N) into shape (shape)'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    v0 = c.var(axis=None, keepdims=True, ddof=1)[b[0]:b[0] + 2]
    c[b[0]] = b[3] + (v0 - 7)
    return c, c


def make_args():
    b0 = np.array([
            0
        ], dtype='int8').reshape(())
    b1 = np.array([
            -3, 3, 3, 0
        ], dtype='int32').reshape((4,))
    b2 = np.array([
            True, True
        ], dtype='bool').reshape((1, 2, 1))
    return (b0, b1, b2,)
