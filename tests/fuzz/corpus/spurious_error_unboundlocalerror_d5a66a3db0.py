"""Fuzzer reproducer, mode ast: spurious-error:UnboundLocalError: cannot access local
variable '*' where it is not associated with a value. jitaic raises
UnboundLocalError("cannot access local variable 'v0' where it is not associated with a
value")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "spurious-error:UnboundLocalError: cannot access local variable '*' where it is not associated with a value"
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = True


def f(a, b):
    if a.sum() > 2.0:
        v0 = np.sin(a)
    else:
        v0 = a + 2.0
    v2 = np.sin(a)
    v0 += a + 2.0
    return v2, a


def make_args():
    b0 = np.array([
            0.0
        ], dtype='float64').reshape((1,))
    b1 = np.array([
            0.0
        ], dtype='float64').reshape(())
    return (b0, b1,)
