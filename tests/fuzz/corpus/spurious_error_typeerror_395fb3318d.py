"""Fuzzer reproducer, mode ast: spurious-error:TypeError: ufunc '*' not supported for the
input types, and the inputs could not be safely coerced to. jitaic raises
TypeError("ufunc 'left_shift' not supported for the input types, and the inputs could
not be safely coerced to any supported types according to the casting rule ''safe'' (in
left_shift) at case_27350_641.py:22 (in f)")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "spurious-error:TypeError: ufunc '*' not supported for the input types, and the inputs could not be safely coerced to"
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    k = 0
    while k < 3 and a > 2:
        v2 = np.where((a + b) > 1, (a + b), a)
        v3 = np.abs(a)
        k += 1
    v4 = np.abs(a)
    a[()] += a + True
    for i in range(3):
        v5 = (c << i)
    return v4, a


def make_args():
    b0 = np.array([
            0
        ], dtype='int8').reshape(())
    b1 = np.array([
            False
        ], dtype='bool').reshape(())
    b2 = np.array([
            0
        ], dtype='uint64').reshape(())
    return (b0, b1, b2,)
