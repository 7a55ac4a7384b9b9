"""Fuzzer reproducer, mode trace, fixed: an unsigned run-time index (u64) became
a float in numba's index arithmetic, so the kernel did not compile (CompileError
where NumPy raises IndexError)."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "wrong-error:IndexError->CompileError: internal error: the code generated for '*' did not compile (a jitaic bug; please report it"
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    a[c] += a.max(axis=None)
    return c


def make_args():
    b0 = np.array([
            False
        ], dtype='bool').reshape((1, 1))
    b1 = np.array([
            1
        ], dtype='uint64').reshape(())
    return (b0, b0, b1,)
