"""Fuzzer reproducer, mode trace: spurious-error:ValueError: could not broadcast input
array from shape (None,) into shape (None, N). jitaic raises ValueError('could not
broadcast input array from shape (None,) into shape (None, 1) (in dyn_setitem) at
case_2616_363.py:15 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:ValueError: could not broadcast input array from shape (None,) into shape (None, N)'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    for i in range(3):
        a[b[0]:] = np.where(b > 1, b, b)[b[0]:]
    return b, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape((1, 1))
    b1 = np.array([
            0
        ], dtype='int8').reshape((1,))
    return (b0, b1,)
