"""Fuzzer reproducer, mode trace: spurious-error:IndexError: list index out of range.
jitaic raises IndexError('list index out of range')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:IndexError: list index out of range'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    v0 = a.cumsum(axis=0)
    return v0


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape(())
    return (b0, b0,)
