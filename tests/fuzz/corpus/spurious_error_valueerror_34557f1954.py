"""Fuzzer reproducer, mode trace: spurious-error:ValueError: non-broadcastable output
operand with shape (None,) doesn't match the broadcast shape (sha. jitaic raises
ValueError("non-broadcastable output operand with shape (None,) doesn't match the
broadcast shape (2,) at case_27476_620.py:18 (in f)")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "spurious-error:ValueError: non-broadcastable output operand with shape (None,) doesn't match the broadcast shape (sha"
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    for i in range(3):
        v0 = np.abs(a)
    for i in range(3):
        v1 = np.abs(a)
    a[b:] += a + True
    return b


def make_args():
    b0 = np.array([
            False, False
        ], dtype='bool').reshape((2,))
    b1 = np.array([
            0
        ], dtype='int8').reshape(())
    return (b0, b1,)
