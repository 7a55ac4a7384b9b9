"""Fuzzer reproducer, mode ast: wrong-error:IndexError->ValueError: non-broadcastable
output operand with shape (shape) doesn't match the broadcast shape (sha. NumPy raises
IndexError('index 1 is out of bounds for axis 0 with size 1'), jitaic ValueError("non-
broadcastable output operand with shape () doesn't match the broadcast shape (1,) at
case_27476_957.py:16 (in f)")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "wrong-error:IndexError->ValueError: non-broadcastable output operand with shape (shape) doesn't match the broadcast shape (sha"
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    k = 0
    while k < 3 and b > 1:
        b += np.isnan(a)
        k += 1
    a[a] += np.abs(a)
    return c, a


def make_args():
    b0 = np.array([
            1
        ], dtype='int8').reshape((1,))
    b1 = np.array([
            False
        ], dtype='bool').reshape(())
    b2 = np.array([
            False
        ], dtype='bool').reshape(())
    return (b0, b1, b2,)
