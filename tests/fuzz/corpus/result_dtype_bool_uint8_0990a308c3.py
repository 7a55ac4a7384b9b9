"""Fuzzer reproducer, mode ast: result-dtype:bool->uint8. result[0]: dtype uint8 !=
NumPy's bool (found as a hang: the run timed out on a loaded machine)"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-dtype:bool->uint8'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b, c):
    v0 = np.clip((a + True), np.uint64(2 ** 64 - 1), np.uint64(2 ** 64 - 1))
    v0 = a.astype(np.uint8)
    k = 0
    while k < 3 and b < 63:
        v0 = np.isnan(k)
        a += np.clip(k, np.int8(-128), np.int8(-128))
        k += 1
    for i in range(1):
        v2 = b.astype(np.float32)
    return v0, c


def make_args():
    b0 = np.array([
            4
        ], dtype='int8').reshape(())
    b1 = np.array([
            4
        ], dtype='int8').reshape(())
    b2 = np.array([
            False, False, False, False
        ], dtype='bool').reshape((2, 1, 2))
    return (b0, b1, b2,)
