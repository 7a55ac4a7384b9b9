"""Fuzzer reproducer, mode ast: missed-error:OverflowError: Python int too large to convert
to C long. NumPy raises OverflowError('Python int too large to convert to C long')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:OverflowError: Python int too large to convert to C long'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    if a > 1:
        a[()] = a + True
    else:
        v0 = a + True
    for i in range(3):
        v1 = a + True
    v2 = a + True
    k = 0
    while k < 3 and a > 2 ** 64:
        v3 = np.abs(a)
        k += 1
    return v2, b


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape(())
    return (b0, b0,)
