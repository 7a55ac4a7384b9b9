"""Fuzzer reproducer, mode trace: spurious-error:OverflowError: Python integer N out of
bounds for intN. jitaic raises OverflowError('Python integer 300 out of bounds for int8
at case_6079_235.py:14 (in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:OverflowError: Python integer N out of bounds for intN'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    v0 = np.clip((b + 1), 300, np.uint64(2 ** 64 - 1))
    return v0, a


def make_args():
    b0 = np.array([

        ], dtype='bool').reshape((0,))
    b1 = np.array([
            0
        ], dtype='int8').reshape(())
    return (b0, b1,)
