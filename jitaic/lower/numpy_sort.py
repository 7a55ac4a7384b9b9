"""NumPy's own sort loops, called by name from compiled code.

``np.sort`` of float64 on an AVX2 machine is NumPy's vectorised quicksort
(x86-simd-sort), 7x faster than a radix argsort followed by a gather.
Calling that very loop also gives NumPy's result bit for bit: which of 0.0
and -0.0, or which NaN, lands where among equal elements is decided by its
algorithm, not ours.

NumPy publishes its sort loops to C extensions: the dtype's
``PyArray_ArrFuncs`` (``PyDataType_GetArrFuncs``, slot 365 of NumPy 2's C
API table, the ``_ARRAY_API`` capsule every extension imports) holds
``sort[kind]`` (quicksort, heapsort, stable), each an ``int (void *data,
npy_intp n, void *arr)`` that sorts ``n`` contiguous elements in place
(``arr`` is unused for numbers). The address is registered with LLVM as
``jitaic_numpy_<kind>_<dtype>``, so generated source names no address and
caches across processes.

Both layouts are NumPy 2's stable ABI. Before a loop is used it sorts probe
arrays (NaNs, signed zeros, ties) and must give ``np.sort``'s bytes; on
another NumPy major version, or if a probe differs, ``available`` is False
and the lowering keeps jitaic's stable radix sort.
"""

from __future__ import annotations

import ctypes
import functools

import llvmlite.binding as llvm
import numpy as np

_GET_ARRFUNCS_SLOT = 365  # _PyDataType_GetArrFuncs in NumPy 2's __multiarray_api.h
# PyArray_ArrFuncs: cast[NPY_NTYPES_ABI_COMPATIBLE = 21], then getitem, setitem,
# copyswapn, copyswap, compare, argmax, dotfunc, scanfunc, fromstr, nonzero,
# fill, fillwithscalar (12 pointers), then sort[NPY_NSORTS]
_SORT_FIELD = 21 + 12
KINDS = ("quicksort", "heapsort", "stable")  # NPY_QUICKSORT, NPY_HEAPSORT, NPY_STABLESORT

_SortLoop = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_void_p)


def symbol(dtype, kind: str) -> str:
    return f"jitaic_numpy_{kind}_{np.dtype(dtype).name}"


def _loop_address(dtype: np.dtype, kind: str) -> int | None:
    """The address of NumPy's sort loop of ``kind`` for ``dtype``, or None."""
    if int(np.__version__.split(".")[0]) != 2:
        return None
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object,
                                                                  ctypes.c_char_p]
    table = get_pointer(np._core._multiarray_umath._ARRAY_API, None)
    slot = ctypes.c_void_p.from_address(table + _GET_ARRFUNCS_SLOT * ctypes.sizeof(
        ctypes.c_void_p)).value
    arrfuncs = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.py_object)(slot)(dtype)
    if not arrfuncs:
        return None
    return ctypes.c_void_p.from_address(
        arrfuncs + (_SORT_FIELD + KINDS.index(kind)) * ctypes.sizeof(ctypes.c_void_p)).value


def _probes(dtype: np.dtype) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.normal(size=300) * 40, [0.0, -0.0] * 20, [1.0] * 30])
    if dtype.kind == "b":
        return [rng.normal(size=300) > 0]
    if dtype.kind in "iu":
        return [values.astype(np.int64).astype(dtype), np.arange(5, dtype=dtype)]
    probe = values.astype(dtype)
    if dtype.kind == "c":
        probe = probe + 1j * rng.integers(-2, 3, probe.size).astype(dtype)
    probe[::17] = np.nan
    return [probe, probe[:5], probe[:0]]


def _sorts_as_numpy(address: int, dtype: np.dtype, kind: str) -> bool:
    loop = _SortLoop(address)
    for probe in _probes(dtype):
        mine = probe.copy()
        if loop(mine.ctypes.data, mine.size, None) != 0:
            return False
        if mine.tobytes() != np.sort(probe, kind=kind).tobytes():
            return False
    return True


@functools.cache
def available(dtype, kind: str) -> bool:
    """Whether a NumPy sort loop gives ``np.sort(kind=kind)``'s results for
    ``dtype``, registered (once per process) as ``symbol(dtype, kind)``. The
    loop of that kind is tried first, then the others: NumPy 2.4's
    ``kind="heapsort"`` of floats is its quicksort."""
    dtype = np.dtype(dtype)
    for candidate in sorted(KINDS, key=lambda k: k != kind):
        try:
            address = _loop_address(dtype, candidate)
        except (AttributeError, ValueError, OSError):  # no capsule, not NumPy 2's layout
            return False
        if address and _sorts_as_numpy(address, dtype, kind):
            llvm.add_symbol(symbol(dtype, kind), address)
            return True
    return False
