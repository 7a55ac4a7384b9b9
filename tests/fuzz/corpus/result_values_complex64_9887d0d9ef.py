"""Fuzzer reproducer, mode ast: result-values:complex64. result leaf 0 at (0,): jitaic
np.complex64(inf+nanj), NumPy np.complex64(nan+nanj)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-values:complex64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    if a.max() > 1j:
        v0 = np.square(a)
    else:
        v0 = a + a
    return v0, v0


def make_args():
    b0 = np.array([
            complex(inf, nan), complex(0.0, 0.0), complex(nan, nan)
        ], dtype='complex64').reshape((3,))
    b1 = np.array([
            False
        ], dtype='bool').reshape(())
    return (b0, b0, b1,)
