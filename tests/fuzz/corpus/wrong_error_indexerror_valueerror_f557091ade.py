"""Fuzzer reproducer, mode ast: wrong-error:IndexError->ValueError: could not broadcast
input array from shape (shape) into shape (shape). NumPy raises IndexError('index -128
is out of bounds for axis 0 with size 2'), jitaic ValueError('could not broadcast input
array from shape (2, 1) into shape (1,) (in dyn_setitem) at case_32387_453.py:15 (in
f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:IndexError->ValueError: could not broadcast input array from shape (shape) into shape (shape)'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c, d):
    if a.sum(dtype=np.float64) > 0:
        a[c] = a + True
    return d, a


def make_args():
    b0 = np.array([
            True, False
        ], dtype='bool').reshape((2, 1))
    b1 = np.array([
            -128
        ], dtype='int8').reshape(())
    b2 = np.array([
            complex(0.0, 0.0)
        ], dtype='complex64').reshape((1,))
    return (b0, b0, b1, b2,)
