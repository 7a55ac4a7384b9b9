"""Fuzzer reproducer, mode ast: spurious-error:CompileError: internal error: the code
generated for '*' did not compile (a jitaic bug; please report it. jitaic raises
CompileError("internal error: the code generated for 'f' did not compile (a jitaic bug;
please report it with the source from f.lower(...).source()). Backend message: Failed in
nopython mode pipeline (step: nopython frontend)")"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "spurious-error:CompileError: internal error: the code generated for '*' did not compile (a jitaic bug; please report it"
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    v0 = np.abs(a)
    a[a > 0] = 1
    k = 0
    while k < 3 and a.sum() > 1:
        v1 = np.abs(a)
        k += 1
    for i in range(3):
        v0 = a == 1
    return v0, a


def make_args():
    b0 = np.array([
            0
        ], dtype='int32').reshape((1,))
    return (b0, b0,)
