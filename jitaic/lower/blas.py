"""Float matrix products through NumPy's own BLAS, chosen the way NumPy chooses.

numba's ``np.dot`` calls the BLAS that scipy bundles, which is another build
(often another version) than the one NumPy links: its kernels round
differently (float32 products differed from NumPy's in the last bits) and are
slower on some shapes (a skinny float32 GEMM, 8x30000 @ 30000x2000, took 62 ms
against NumPy's 34). Here generated code calls the CBLAS that NumPy itself
exports (``scipy_cblas_dgemm64_`` in PyPI wheels), found through NumPy's
extension module, with the routine and arguments NumPy's ``matmul`` loop would
pick for the same operands (numpy/_core/src/umath/matmul.c.src):

* ``gemm`` for matrix @ matrix, ``syrk`` plus a copy of the triangle for a
  matrix times its own transpose (same memory), ``gemv`` when one side is a
  vector (or a matrix with one row or column), ``dot`` for vector @ vector,
  and plain loops for a contracted extent of 1;
* a view is passed as it is (strides as a leading dimension and a transpose
  flag) when one of its axes is contiguous - no copy, as in NumPy.

So a product compiled by jitaic equals NumPy's bit for bit on the same
machine. Where NumPy falls back to its own unblocked loops (neither axis of
an operand contiguous, negative strides) this copies the operand and calls
BLAS instead: faster, equal within floating-point reassociation.

The routines are declared by name (``jitaic_cblas64_dgemm``), the names
registered with LLVM at import. The product itself is one numba ``cfunc`` per
dtype, compiled on first use and cached on disk; kernels call it by a name
registered the same way (see below), so importing jitaic compiles nothing
and generated source holds no address of this process. Without such a BLAS
(a NumPy built against Accelerate or without CBLAS), or with ``config
numpy_blas`` off, the lowering uses numba's ``np.dot`` instead
(``runtime.split_dot``).
"""

from __future__ import annotations

import ctypes

import llvmlite.binding as llvm
import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

from jitaic.lower.external import ExternalFunctions
from jitaic.lower.runtime import fixed_arity_intrinsic
from jitaic.lower.threads import available as available_threads

ROW_MAJOR, COL_MAJOR = 101, 102
NO_TRANS, TRANS = 111, 112
UPPER = 121

# Parameter kinds of each routine, in CBLAS order: "enum" a C int, "int" the
# BLAS integer (64-bit in ILP64 builds), "scalar" the element type, "array" a
# pointer to an array's first element.
ROUTINES = {
    "gemm": "enum enum enum int int int scalar array int array int scalar array int",
    "gemv": "enum enum int int scalar array int array int scalar array int",
    "syrk": "enum enum enum int int scalar array int scalar array int",
    "dot": "int array int array int",
}


def _numpy_cblas():
    """(library, symbol prefix, suffix, integer bits) of the CBLAS NumPy links, or None."""
    try:
        from numpy._core import _multiarray_umath
        library = ctypes.CDLL(_multiarray_umath.__file__)
    except (ImportError, OSError):
        return None
    # PyPI wheels: scipy-openblas (ILP64 with a 64_ suffix, or LP64); then
    # the conventions of other builds. dlsym searches NumPy's dependencies.
    for prefix, suffix, bits in (("scipy_", "64_", 64), ("scipy_", "", 32),
                                 ("", "64_", 64), ("", "", 32)):
        if all(hasattr(library, f"{prefix}cblas_{t}{name}{suffix}")
               for t in "sd" for name in ROUTINES):
            return library, prefix, suffix, bits
    return None


def _register(found) -> tuple[int, object]:
    """Give LLVM the addresses of NumPy's routines under jitaic's own names."""
    library, prefix, suffix, bits = found
    for t in "sd":
        for name in ROUTINES:
            function = getattr(library, f"{prefix}cblas_{t}{name}{suffix}")
            llvm.add_symbol(_symbol(bits, t, name),
                            ctypes.cast(function, ctypes.c_void_p).value)
    for query in (f"{prefix}openblas_get_num_threads{suffix}", "MKL_Get_Max_Threads"):
        function = getattr(library, query, None)
        if function is not None:
            llvm.add_symbol(_THREADS_SYMBOL, ctypes.cast(function, ctypes.c_void_p).value)
            function.restype = ctypes.c_int
            return bits, function
    return bits, None


def _symbol(bits: int, letter: str, routine: str) -> str:
    # The integer width is part of the name: code cached against one build
    # never links against another.
    return f"jitaic_cblas{bits}_{letter}{routine}"


_THREADS_SYMBOL = "jitaic_blas_get_num_threads"
_FOUND = _numpy_cblas()
AVAILABLE = _FOUND is not None
_BITS, _THREADS_QUERY = _register(_FOUND) if AVAILABLE else (64, None)
_KNOWS_THREADS = _THREADS_QUERY is not None


def _cblas(routine: str):
    """An intrinsic calling ``cblas_<s|d><routine>`` of NumPy's BLAS, the
    letter picked from the arrays' dtype (float32 or float64)."""
    kinds = ROUTINES[routine].split()
    blas_int = types.int64 if _BITS == 64 else types.int32

    def typer(typingctx, *args):
        arrays = [t for t, kind in zip(args, kinds, strict=True) if kind == "array"]
        dtype = arrays[0].dtype
        if dtype not in (types.float32, types.float64) or \
                any(a.dtype != dtype for a in arrays):
            return None
        params = {"enum": types.int32, "int": blas_int, "scalar": dtype}
        signature = (dtype if routine == "dot" else types.void)(
            *[t if kind == "array" else params[kind] for t, kind in zip(args, kinds)])

        def codegen(context, builder, sig, values):
            scalar = context.get_value_type(dtype)
            llvm_types = {"enum": ir.IntType(32), "int": ir.IntType(_BITS),
                          "scalar": scalar, "array": ir.IntType(8).as_pointer()}
            function = cgutils.get_or_insert_function(
                builder.module,
                ir.FunctionType(scalar if routine == "dot" else ir.VoidType(),
                                [llvm_types[kind] for kind in kinds]),
                _symbol(_BITS, "s" if dtype == types.float32 else "d", routine))
            actual = [builder.bitcast(context.make_array(t)(context, builder, v).data,
                                      llvm_types["array"]) if kind == "array" else v
                      for v, t, kind in zip(values, sig.args, kinds)]
            return builder.call(function, actual)

        return signature, codegen

    return fixed_arity_intrinsic(f"_{routine}", len(kinds), typer, __name__)


_gemm, _gemv, _syrk, _dot = (_cblas(name) for name in ("gemm", "gemv", "syrk", "dot"))


@intrinsic
def _blas_get_num_threads(typingctx):
    def codegen(context, builder, sig, args):
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(32), []), _THREADS_SYMBOL)
        return builder.call(function, [])

    return types.int32(), codegen


if _KNOWS_THREADS:
    @numba.njit(inline="always")  # see lower/threads.py
    def split_threads():
        """Threads to split a matrix product over: those parallel loops may
        use now (lower/threads.py), when the BLAS runs on one thread (asked
        at every call: threadpoolctl may change it after a specialisation
        compiled), else 1. Splitting the calls of a multi-threaded BLAS
        oversubscribes the cores (measured 8x slower)."""
        return available_threads() if _blas_get_num_threads() == 1 else 1
else:
    @numba.njit(cache=True)
    def split_threads():
        return 1  # a BLAS that cannot say how many threads it runs: never split


def runs_threaded(m: int | None, n: int | None, k: int | None) -> bool:
    """Whether NumPy's BLAS may run an (m x k) @ (k x n) product (n = 1: a
    matrix-vector product, m = n = 1: a dot) on several threads now; None is
    an extent known only at run time. Below OpenBLAS's own thresholds (m*n*k
    of 262144 for gemm, m*n of 9216 for gemv, 10000 for dot) it runs on the
    calling thread; a BLAS that cannot say how many threads it has counts as
    threaded."""
    if _KNOWS_THREADS and _THREADS_QUERY() == 1:
        return False
    if None in (m, n, k):
        return True
    if m == n == 1:
        return k > 10000
    if min(m, n) == 1:
        return m * n * k >= 9216
    return m * n * k > 262144


# ------------------------------------------------------------ NumPy's choices

@numba.njit(cache=True)
def _unit(stride, itemsize):
    """A byte stride as BLAS's element increment: 0 unless a positive multiple."""
    return stride // itemsize if stride > 0 and stride % itemsize == 0 else 0


@numba.njit(cache=True)
def _leading(a, axis):
    """The leading dimension BLAS reads a 2-D ``a`` with when ``axis`` is its
    contiguous one (NumPy's is_blasable2d), else 0."""
    other = 1 - axis
    if a.strides[axis] != a.itemsize:
        return 0
    ld = _unit(a.strides[other], a.itemsize)
    return ld if ld >= max(a.shape[axis], 1) else 0


@numba.njit(cache=True)
def _blasable(a):
    """``a`` itself if BLAS can read it in place, else a contiguous copy."""
    if _leading(a, 1) or _leading(a, 0):
        return a
    return np.ascontiguousarray(a)


@numba.njit(cache=True)
def _vector(v):
    """``v`` itself if its stride is a positive multiple of the item, else a copy."""
    if _unit(v.strides[0], v.itemsize) or v.shape[0] == 0:
        return v
    return np.ascontiguousarray(v)


@numba.njit(cache=True)
def _matrix_vector(a, v, out):
    """out = a @ v through gemv, with NumPy's arguments: a C-ordered matrix is
    read column-major and transposed, an F-ordered one row-major."""
    m, n = a.shape
    ld = _leading(a, 1)
    if ld:
        order = COL_MAJOR
    else:
        order, ld = ROW_MAJOR, _leading(a, 0)
    _gemv(order, TRANS, n, m, 1.0, a, ld, v, _unit(v.strides[0], v.itemsize),
          0.0, out, _unit(out.strides[0], out.itemsize))


@numba.njit(cache=True)
def _vector_dot(x, y):
    """NumPy's dot of two vectors: ``0 + cblas_dot`` (NumPy adds the BLAS
    result to a zero, which turns -0 into +0)."""
    r = _dot(x.shape[0], x, _unit(x.strides[0], x.itemsize), y, _unit(y.strides[0], y.itemsize))
    return r if r != 0 else abs(r)


@numba.njit(cache=True)
def _is_own_transpose(a, b):
    """b is a.T in memory (NumPy computes a @ a.T with syrk)."""
    return (a.ctypes.data == b.ctypes.data and a.shape[0] == b.shape[1]
            and a.strides[0] == b.strides[1] and a.strides[1] == b.strides[0])


@numba.njit(cache=True)
def _matrix_matrix(a, b, out):
    """out = a @ b through gemm (or syrk for a @ a.T), as NumPy calls them."""
    m, k = a.shape
    n = b.shape[1]
    ldc = out.strides[0] // out.itemsize
    lda = _leading(a, 1)
    trans_a = NO_TRANS
    if not lda:
        trans_a, lda = TRANS, _leading(a, 0)
    ldb = _leading(b, 1)
    trans_b = NO_TRANS
    if not ldb:
        trans_b, ldb = TRANS, _leading(b, 0)
    if _is_own_transpose(a, b) and trans_a != trans_b:
        _syrk(ROW_MAJOR, UPPER, trans_a, m, k, 1.0, a, lda, 0.0, out, ldc)
        for i in range(m):
            for j in range(i + 1, m):
                out[j, i] = out[i, j]
    else:
        _gemm(ROW_MAJOR, trans_a, trans_b, m, n, k, 1.0, a, lda, b, ldb, 0.0, out, ldc)


# The product follows NumPy's matmul loop case by case: an empty contraction
# gives zeros, a 1x1 result a dot, a contracted extent of 1 plain loops
# (0 + a*b, as NumPy's loop adds to a zero), a single row or column gemv, the
# rest gemm. Operands BLAS cannot read in place are copied.

@numba.njit(cache=True)
def _matmul_views(a, b, out):
    """``out[...] = a @ b`` for 2-D float arrays of one dtype, ``out``'s rows
    contiguous. A vector is a matrix of one row (left) or column (right)."""
    m, k = a.shape
    n = b.shape[1]
    if m == 0 or n == 0:
        return
    if k == 0:
        out[:] = 0
    elif m == 1 and n == 1:
        out[0, 0] = _vector_dot(_vector(a[0]), _vector(b[:, 0]))
    elif k == 1:
        for i in range(m):
            for j in range(n):
                out[i, j] = 0
                out[i, j] += a[i, 0] * b[0, j]
    elif m == 1:  # a row @ matrix: gemv on b transposed
        _matrix_vector(_blasable(b).T, _vector(a[0]), out[0])
    elif n == 1:
        _matrix_vector(_blasable(a), _vector(b[:, 0]), out[:, 0])
    else:
        _matrix_matrix(_blasable(a), _blasable(b), out)


# ------------------------------------------- one compiled product per dtype
#
# Compiled code calls the product as an external function (external.py):
# the product's cases and copies added ~0.2 s to the compilation of every
# kernel with a matmul. A kernel passes each operand as data pointer,
# extents and byte strides.

@intrinsic
def _view(typingctx, data, rows, cols, row_stride, col_stride, like):
    """A borrowed 2-D array (layout 'A') over memory owned by the caller, of
    the type of the scalar ``like``."""
    array_type = types.Array(like, 2, "A")

    def codegen(context, builder, sig, args):
        data, rows, cols, row_stride, col_stride, _ = args
        array = context.make_array(array_type)(context, builder)
        itemsize = context.get_constant(types.intp, context.get_abi_sizeof(
            context.get_data_type(like)))
        pointer = context.get_data_type(like).as_pointer()
        populate_array(array, data=builder.bitcast(data, pointer),
                       shape=[rows, cols], strides=[row_stride, col_stride],
                       itemsize=itemsize, meminfo=None)
        return array._getvalue()

    return array_type(data, rows, cols, row_stride, col_stride, like), codegen


OPERAND = (types.voidptr, types.intp, types.intp, types.intp, types.intp)
_PRODUCT_SIGNATURE = types.void(*OPERAND, *OPERAND, *OPERAND)


def _product_float64(a, am, ak, a0, a1, b, bk, bn, b0, b1, out, om, on, o0, o1):
    like = np.float64(0)
    _matmul_views(_view(a, am, ak, a0, a1, like), _view(b, bk, bn, b0, b1, like),
                  _view(out, om, on, o0, o1, like))


def _product_float32(a, am, ak, a0, a1, b, bk, bn, b0, b1, out, om, on, o0, o1):
    like = np.float32(0)
    _matmul_views(_view(a, am, ak, a0, a1, like), _view(b, bk, bn, b0, b1, like),
                  _view(out, om, on, o0, o1, like))


_PRODUCTS = ExternalFunctions(
    "jitaic_product", {np.dtype(np.float64): _product_float64,
                       np.dtype(np.float32): _product_float32},
    lambda dtype: _PRODUCT_SIGNATURE)
# Compile (or load from numba's cache) the product for float32 or float64
# operands, once per process, and register it with LLVM by name.
register_product = _PRODUCTS.register


@intrinsic
def _call_product(typingctx, a, b, out):
    """``out = a @ b`` through the registered product of their dtype; a 1-D
    ``a`` is one row, a 1-D ``b`` one column, and ``out`` has the matching
    shape (one element for vector @ vector)."""
    if not (a.dtype == b.dtype == out.dtype and a.dtype in (types.float32, types.float64)):
        return None
    symbol = _PRODUCTS.symbol(str(a.dtype))

    def codegen(context, builder, sig, args):
        arrays = [context.make_array(t)(context, builder, v)
                  for t, v in zip(sig.args, args)]
        ndims = [t.ndim for t in sig.args]
        zero, one = (context.get_constant(types.intp, k) for k in (0, 1))

        def operand(k, role):
            """(data, rows, cols, row stride, col stride) of array k."""
            data = builder.bitcast(arrays[k].data, ir.IntType(8).as_pointer())
            shape = cgutils.unpack_tuple(builder, arrays[k].shape, ndims[k])
            strides = cgutils.unpack_tuple(builder, arrays[k].strides, ndims[k])
            if ndims[k] == 2:
                return [data, *shape, *strides]
            if role == "row":
                return [data, one, shape[0], zero, strides[0]]
            return [data, shape[0], one, strides[0], zero]

        values = operand(0, "row") + operand(1, "column") + \
            operand(2, "row" if ndims[0] == 1 else "column")
        if ndims[0] == ndims[1] == 1:  # one element
            values[-4:] = [one, one, zero, zero]
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [v.type for v in values]), symbol)
        builder.call(function, values)
        return context.get_dummy_value()

    return types.none(a, b, out), codegen


@numba.njit(cache=True)
def matmul_into(a, b, out):
    """``out[...] = a @ b``; ``out`` has contiguous rows (a block of rows of a
    C-ordered array is fine)."""
    _call_product(a, b, out)


@numba.njit(cache=True)
def matmul(a, b):
    """``a @ b``, 2-D @ 2-D."""
    out = np.empty((a.shape[0], b.shape[1]), a.dtype)
    _call_product(a, b, out)
    return out


@numba.njit(cache=True)
def mat_vec(a, v):
    """``a @ v``, 2-D @ 1-D."""
    out = np.empty(a.shape[0], a.dtype)
    _call_product(a, v, out)
    return out


@numba.njit(cache=True)
def vec_mat(v, b):
    """``v @ b``, 1-D @ 2-D."""
    out = np.empty(b.shape[1], b.dtype)
    _call_product(v, b, out)
    return out


@numba.njit(cache=True)
def vec_vec(x, y):
    """``x @ y``, 1-D @ 1-D."""
    out = np.empty(1, x.dtype)
    _call_product(x, y, out)
    return out[0]


@numba.njit(parallel=True, cache=True)
def split_matmul(a, b, threads):
    """``a @ b`` (2-D) with a's rows split into one block per thread. Each block
    is the same BLAS kernel on fewer rows."""
    m = a.shape[0]
    out = np.empty((m, b.shape[1]), a.dtype)
    if threads < 2 or m < 2 * threads:
        _call_product(a, b, out)
        return out
    for block in numba.prange(threads):
        rows = slice(block * m // threads, (block + 1) * m // threads)
        _call_product(a[rows], b, out[rows])
    return out
