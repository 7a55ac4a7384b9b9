"""Fuzzer reproducer, mode ast: spurious-error:TypeError: ufunc '*' not supported for the
input types, and the inputs could not be safely coerced to. jitaic raises
TypeError("ufunc 'left_shift' not supported for the input types, and the inputs could
not be safely coerced to any supported types according to the casting rule ''safe'' (in
left_shift) at case_30651_256.py:16 (in f)")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "spurious-error:TypeError: ufunc '*' not supported for the input types, and the inputs could not be safely coerced to"
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    v0 = np.negative(b)
    for i in range(1):
        v0[i] <<= np.abs(np.abs(a))
        v0 = b.astype(np.float64)
    v1 = np.abs(a)
    return v1, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape(())
    b1 = np.array([
            0
        ], dtype='int8').reshape((1, 1))
    return (b0, b1,)
