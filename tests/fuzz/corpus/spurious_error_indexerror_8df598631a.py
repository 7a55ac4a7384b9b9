"""Fuzzer reproducer, mode trace: spurious-error:IndexError: a slice of length N runs
outside axis N of size N at case_N_N.py:N (NumPy would shorten it. jitaic raises
IndexError('a slice of length 2 runs outside axis 0 of size 2 at case_27457_672.py:15
(NumPy would shorten it; jitaic keeps slice lengths static)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:IndexError: a slice of length N runs outside axis N of size N (NumPy would shorten it; jitaic keeps sl'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    v0 = a + True
    b[c:c + 2] += a + True
    return v0, a


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape(())
    b1 = np.array([
            False, False
        ], dtype='bool').reshape((2, 1, 1))
    b2 = np.array([
            -5
        ], dtype='int64').reshape(())
    return (b0, b1, b2,)
