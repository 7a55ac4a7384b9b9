"""Fuzzer reproducer, mode trace: wrong-error:IndexError->TypeError: ufunc '*' not
supported for the input types, and the inputs could not be safely coerced to. NumPy
raises IndexError('index 1 is out of bounds for axis 0 with size 1'), jitaic
TypeError("ufunc 'bitwise_or' not supported for the input types, and the inputs could
not be safely coerced to any supported types according to the casting rule ''safe'' (in
bitwise_or) at case_2154_463.py:15 (in f)")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "wrong-error:IndexError->TypeError: ufunc '*' not supported for the input types, and the inputs could not be safely coerced to"
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    a[a > 0] = 0.5
    b |= a[c]
    return c


def make_args():
    b0 = np.array([
            0.0
        ], dtype='float32').reshape((1,))
    b1 = np.array([
            False
        ], dtype='bool').reshape(())
    b2 = np.array([
            0, 1, 0
        ], dtype='int64').reshape((3,))
    return (b0, b1, b2,)
