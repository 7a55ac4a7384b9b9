"""Fuzzer reproducer, mode ast: spurious-error:TypeError: ufunc '*' not supported for the
input types, and the inputs could not be safely coerced to. jitaic raises
TypeError("ufunc 'left_shift' not supported for the input types, and the inputs could
not be safely coerced to any supported types according to the casting rule ''safe'' (in
left_shift) at case_30485_285.py:19 (in f)")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "spurious-error:TypeError: ufunc '*' not supported for the input types, and the inputs could not be safely coerced to"
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c, d):
    v0 = a + (2 - 0.5j)
    k = 0
    while k < 3:
        v0 = k + True
        k += 1
    b[0] <<= v0
    return d, a


def make_args():
    b0 = np.array([
            complex(0.0, 0.0)
        ], dtype='complex64').reshape(())
    b1 = np.array([
            0
        ], dtype='int32').reshape((1, 1, 1))
    b2 = np.array([
            False
        ], dtype='bool').reshape((1, 1))
    b3 = np.array([
            0
        ], dtype='int64').reshape(())
    return (b0, b1, b2, b3,)
