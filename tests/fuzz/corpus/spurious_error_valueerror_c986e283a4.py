"""Fuzzer reproducer, mode ast: spurious-error:ValueError: cannot convert float NaN to
integer. jitaic raises ValueError('cannot convert float NaN to integer at
case_27579_1163.py:18 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:ValueError: cannot convert float NaN to integer'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    a[()] -= -a
    v0 = (a * -1.5)
    v1 = a + 1
    if a > 1:
        a[()] = np.sqrt(v0)
    else:
        v2 = a | b
    return v1


def make_args():
    b0 = np.array([
            1
        ], dtype='uint8').reshape(())
    b1 = np.array([
            False
        ], dtype='bool').reshape((1,))
    return (b0, b1,)
