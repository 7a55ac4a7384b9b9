"""Fuzzer reproducer, mode trace: spurious-error:OverflowError: Python int too large to
convert to C long. jitaic raises OverflowError('Python int too large to convert to C
long')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:OverflowError: Python int too large to convert to C long'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    for i in range(3):
        v0 = a + True
    v1 = (b + 2 ** 63 - 1)
    return v1


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape(())
    b1 = np.array([
            0
        ], dtype='uint64').reshape(())
    return (b0, b1,)
