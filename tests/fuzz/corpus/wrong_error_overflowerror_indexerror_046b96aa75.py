"""Fuzzer reproducer, mode trace: wrong-error:OverflowError->IndexError: too many indices
for array: array is N-dimensional, but N were indexed. NumPy raises
OverflowError('Python int too large to convert to C long'), jitaic IndexError('too many
indices for array: array is 0-dimensional, but 1 were indexed at case_28273_693.py:14
(in f)')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:OverflowError->IndexError: too many indices for array: array is N-dimensional, but N were indexed'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    a[a] += np.abs(a)
    return a


def make_args():
    b0 = np.array([
            18446744073709551615
        ], dtype='uint64').reshape(())
    return (b0,)
