"""Fuzzer reproducer, mode trace: spurious-error:ValueError: non-broadcastable output
operand with shape (shape) doesn't match the broadcast shape (Non. jitaic raises
ValueError("non-broadcastable output operand with shape (1,) doesn't match the broadcast
shape (None,) at case_27460_1161.py:18 (in f)")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "spurious-error:ValueError: non-broadcastable output operand with shape (shape) doesn't match the broadcast shape (Non"
KNOWN_FAILURE = None  # fixed: a run-time extent in an in-place op is checked when it runs
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    for i in range(3):
        v0 = np.abs(a)
    v1 = a.cumsum()
    for i in range(3):
        a[v1] += a[v1[0]:]
    return v1, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape((1,))
    return (b0,)
