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


def f(a, b, c):
    v0 = b + 2 ** 64
    return v0, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape(())
    b1 = np.array([
            complex(0.0, 0.0)
        ], dtype='complex64').reshape(())
    b2 = np.array([
            False
        ], dtype='bool').reshape(())
    return (b0, b1, b2,)
