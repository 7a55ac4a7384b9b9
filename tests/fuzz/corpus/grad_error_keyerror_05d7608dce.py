"""Fuzzer reproducer, mode grad: grad-error:KeyError. KeyError(140286373252672)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'grad-error:KeyError'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = True


def f(a):
    if a.sum() > 2.0:
        v0 = a + 2.0
    else:
        v0 = a + 2.0
    return v0


def make_args():
    b0 = np.array([
            0.0
        ], dtype='float64').reshape((1,))
    return (b0,)
