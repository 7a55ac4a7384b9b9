"""Found by the CI budget, reduced by hand: jitaic's IndexError for a run-time slice
past the end (NumPy shortens it) comes before NumPy's own ValueError on the next line."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'wrong-error:ValueError->IndexError: a slice of length N does not fit axis N of size N'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, d):
    v0 = d[None][a:a + 2]
    d[()] = np.ones(1)
    return v0


def make_args():
    return (np.array(64, dtype=np.int8), np.array(0, dtype=np.int32),)
