"""Helpers that generated code calls (compiled by numba like the code itself)."""

from __future__ import annotations

import ctypes
import functools
import math

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic, overload
from numba.np.arrayobj import populate_array

from jitaic.errors import Interrupted, UnsupportedError  # noqa: F401  (raised by generated code)
from jitaic.lower.buffers import c_call, huge_pages
from jitaic.lower.external import ExternalFunctions
from jitaic.lower.threads import available, limit_threads, restore_threads  # noqa: F401

# --------------------------------------------------------- errors with run-time values
#
# Compiled code raises these with the run-time values of a message; the class
# gives back a plain IndexError/ValueError whose message Python formats when
# the exception reaches it. Building the message in compiled code ('index ' +
# str(i)) made numba compile its unicode machinery into the kernel: ~0.8 s
# of a first call (a kernel with one run-time index: 1.15 s -> 0.36 s).

def _numpy_error(name: str, base: type[Exception], template: str) -> type:
    def __new__(cls, *values):  # noqa: N807
        if len(values) == 1 and isinstance(values[0], base):
            # Python normalising the exception it already made (it does so when
            # the error is raised while another is handled): keep it
            return values[0]
        return base(template.format(*values))
    return type(name, (base,), {"__new__": __new__, "__module__": __name__,
                                "__qualname__": name, "__doc__": f"{base.__name__}: {template}"})


IndexOutOfBounds = _numpy_error(
    "IndexOutOfBounds", IndexError, "index {} is out of bounds for axis {} with size {}{}")
SliceOutside = _numpy_error(
    "SliceOutside", IndexError, "a slice of length {} runs outside axis {} of size {}{}")
LengthsDiffer = _numpy_error(
    "LengthsDiffer", ValueError, "{}: lengths known at run time differ ({} vs {}){}")
ContractedMismatch = _numpy_error(
    "ContractedMismatch", ValueError, "matmul: mismatch in the contracted dimension ({} vs {}){}")
MaskAssignCount = _numpy_error(
    "MaskAssignCount", ValueError, "NumPy boolean array indexing assignment cannot assign {} "
    "input values to the {} output values where the mask is true")


@intrinsic
def _check_signals_c(typingctx):
    return c_call("PyErr_CheckSignals", ir.IntType(32), [])


# ------------------------------------------------- numba's array constructors, cached
#
# numba compiles its own np.empty, np.full, np.zeros, np.ascontiguousarray,
# np.broadcast_to, as_strided, np.dot, np.cbrt, its merge sort and the
# allocation behind copy() and astype() the first time a process types a
# call to them with new argument types (50-190 ms each; a sixth of the cold
# first calls of benchmarks/bench_compile.py). Generated code calls them
# through these wrappers (codegen.empty, full, copy_of, ...), which
# numba keeps on disk once per installation and signature; LLVM inlines them
# into the caller. Shapes are tuples of int64 (codegen.int64_shape): a
# literal would make numba compile a wrapper anew for each value.

@numba.njit(cache=True)
def empty(shape, dtype):
    return np.empty(shape, dtype)


@numba.njit(cache=True)
def full(shape, fill, dtype):
    return np.full(shape, fill, dtype)


@numba.njit(cache=True)
def zeros(shape, dtype):
    return np.zeros(shape, dtype)


@numba.njit(cache=True)
def contiguous(a):
    return np.ascontiguousarray(a)


@numba.njit(cache=True)
def copy(a):
    return a.copy()


@numba.njit(cache=True)
def astype(a, dtype):
    return a.astype(dtype)


@numba.njit(cache=True)
def broadcast_to(a, shape):
    return np.broadcast_to(a, shape)


@numba.njit(cache=True)
def as_strided(a, shape, strides):
    return np.lib.stride_tricks.as_strided(a, shape, strides)


@numba.njit(cache=True)
def dot(a, b):
    return np.dot(a, b)


# An array assigned into a slice of another (``out[i, :] = f(...)``) compiles
# numba's general broadcasting setitem into the caller, uncached: 4-6 s of
# typing and LLVM on a process's first such statement, and 1-2 s of LLVM on
# every later one. Generated code copies through this cached helper instead
# (and sorts lanes into their place: order.argsort_into).

@numba.njit(cache=True)
def copy_into(out, value):
    """out[...] = value, for arrays of one shape."""
    for index in np.ndindex(value.shape):
        out[index] = value[index]


@numba.njit(cache=True)
def cbrt(x):
    return np.cbrt(x)


@numba.njit(forceinline=True, error_model="numpy", cache=True)
def fmod_int(a, b):
    """NumPy's integer fmod: the remainder of the truncated quotient (the
    sign of a), 0 for b == 0 and for the smallest integer over -1."""
    if b == 0 or b == -1:
        return a - a
    r = a % b  # numba's is Python's: the sign of b
    return r - b if r != 0 and (r < 0) != (a < 0) else r


# numba's np.log2, np.exp2 and np.spacing of float32 and of float64 in one
# function declare one C function twice (an LLVM type error); each call
# through a helper of its own compiles apart, and LLVM still inlines it.
@numba.njit(forceinline=True, error_model="numpy", cache=True)
def log2(x):
    return np.log2(x)


@numba.njit(forceinline=True, error_model="numpy", cache=True)
def exp2(x):
    return np.exp2(x)


@numba.njit(forceinline=True, error_model="numpy", cache=True)
def spacing(x):
    return np.spacing(x)


@numba.njit(forceinline=True, error_model="numpy", cache=True)
def ldexp(x, n):
    """x * 2**n rounded once, the exponent clamped to C's int as NumPy's loop
    does (a float32 x is exact in double; the caller rounds it back). numba's
    np.ldexp keeps an int64 exponent's low 32 bits, and its float32 and
    float64 versions clash in one function."""
    return math.ldexp(x, min(max(n, -2147483648), 2147483647))


@numba.njit(forceinline=True, cache=True)
def bitwise_count(x):
    """The number of 1 bits of |x| (NumPy's; of the smallest integer: 1), by
    the SWAR sums LLVM turns into a popcount."""
    v = np.uint64(-np.int64(x)) if x < 0 else np.uint64(x)
    v = v - ((v >> np.uint64(1)) & np.uint64(0x5555555555555555))
    v = (v & np.uint64(0x3333333333333333)) + ((v >> np.uint64(2)) & np.uint64(0x3333333333333333))
    v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.uint8((v * np.uint64(0x0101010101010101)) >> np.uint64(56))


@numba.njit(cache=True)
def interrupted():
    """Whether a signal Python handles (Ctrl-C) arrived: Python runs its handler
    here, which leaves KeyboardInterrupt set. While loops poll this."""
    return _check_signals_c() != 0


# Float -> integer casts as NumPy's compile on x86-64 (C leaves values outside
# the target undefined; LLVM makes them poison, so constant folding and
# vectorised code disagreed with NumPy and with each other). The truncating
# conversion instructions give the "integer indefinite" (the smallest
# integer) for NaN and out-of-range values; types narrower than 32 bits go
# through int32 and keep its low bits, uint64 through C's two-step sequence.
# (abs(x) < 2**k leaves out -2**k itself, whose value is the fallback anyway,
# and NaN: one compare fewer in vectorised loops.)
@numba.njit(inline="always", cache=True)
def float_to_int32(x):
    return np.int32(x) if abs(x) < 2147483648.0 else np.int32(-2147483648)


@numba.njit(inline="always", cache=True)
def float_to_int64(x):
    return np.int64(x) if abs(x) < 9223372036854775808.0 else np.int64(-9223372036854775808)


@numba.njit(inline="always", cache=True)
def float_to_uint64(x):
    if not x >= 9223372036854775808.0:  # NaN too
        return np.uint64(float_to_int64(x))
    return np.uint64(float_to_int64(x - 9223372036854775808.0)) ^ np.uint64(1 << 63)


@numba.njit(cache=True)
def uint64_power(base, exponent):
    """base ** exponent by squaring, wrapping in uint64 (and so in every
    narrower integer type) as NumPy's: numba's ** goes through float pow for
    exponents above 2**16 and misreads those of 2**63 and more."""
    base, exponent = np.uint64(base), np.uint64(exponent)
    result = np.uint64(1)
    while exponent != np.uint64(0):
        if exponent & np.uint64(1):
            result = result * base
        base = base * base
        exponent = exponent >> np.uint64(1)
    return result


@numba.njit(cache=True)
def int_matmul(a, b):
    """Integer matrix product (BLAS has no integer kernels); wraps like NumPy."""
    m, k = a.shape
    n = b.shape[1]
    out = np.zeros((m, n), a.dtype)
    for i in range(m):
        for p in range(k):
            aip = a[i, p]
            for j in range(n):
                out[i, j] += aip * b[p, j]
    return out


@numba.njit(cache=True)
def mat_vec(m, v):
    """``m @ v`` for strided views: one BLAS dot per row (no copy of m)."""
    out = np.empty(m.shape[0], m.dtype)
    for i in range(m.shape[0]):
        out[i] = np.dot(m[i], v)
    return out


def _blas_thread_query():
    """The ctypes function giving the thread count of the BLAS that numba's
    np.dot calls (scipy's, found through scipy's BLAS module), or None."""
    try:
        from scipy.linalg import cython_blas
        lib = ctypes.CDLL(cython_blas.__file__)
    except (ImportError, OSError):
        return None
    for name in ("scipy_openblas_get_num_threads", "openblas_get_num_threads",
                 "MKL_Get_Max_Threads"):
        fn = getattr(lib, name, None)  # dlsym searches the module's dependencies too
        if fn is not None:
            fn.argtypes, fn.restype = [], ctypes.c_int
            return fn
    return None


@functools.cache
def _dot_threads():
    """``dot_threads``, built on first use: finding scipy's BLAS imports scipy
    (~0.1 s), which ``import jitaic`` should not pay."""
    query = _blas_thread_query()
    if query is None:
        @numba.njit
        def dot_threads():
            return 1  # an unknown BLAS: never split its calls
        return dot_threads

    @numba.njit  # not cached: a call through a ctypes pointer
    def dot_threads():
        """Threads to split a matrix product over: those parallel loops may
        use now (lower/threads.py), when the BLAS runs
        on one thread (read at every call: threadpoolctl may change it after
        a specialisation compiled), else 1. Splitting the calls of a
        multi-threaded BLAS oversubscribes the cores (measured 8x slower)."""
        return available() if query() == 1 else 1
    return dot_threads


def __getattr__(name: str):
    if name == "dot_threads":  # generated code calls rt.dot_threads()
        return _dot_threads()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@numba.njit(parallel=True, cache=True)
def split_dot(a, b, threads):
    """``a @ b`` with a's rows split into blocks, one per thread. Each block is
    the same BLAS kernel on fewer rows, so the result equals one call's."""
    m = a.shape[0]
    if threads < 2 or m < 2 * threads:
        return np.dot(a, b)
    out = np.empty((m, b.shape[1]), a.dtype)
    for block in numba.prange(threads):
        rows = slice(block * m // threads, (block + 1) * m // threads)
        np.dot(a[rows], b, out[rows])
    return out


def _extreme(name: str, predicate: str, bool_op: str):
    """An intrinsic ``(a, b)`` -> the larger (``predicate`` ">") or smaller
    ("<") of two scalars of one type.

    Floats use LLVM's ``maximum``/``minimum``: NaN if either is NaN (NumPy's
    max/min) and -0.0 below 0.0. A loop reducing with them vectorises as it
    stands (LLVM 17+), where ``v if v > acc or v != v else acc`` stays scalar
    (a select whose NaN test LLVM may not reorder): a row max 1.7x faster.
    Integers compare and select, booleans and/or; LLVM vectorises those anyway."""
    def typer(typingctx, a, b):
        if a != b or not isinstance(a, (types.Float, types.Integer, types.Boolean)):
            return None

        def codegen(context, builder, sig, args):
            x, y = args
            if isinstance(a, types.Float):
                fn = builder.module.declare_intrinsic(
                    f"llvm.{name}", [x.type], ir.FunctionType(x.type, [x.type, x.type]))
                return builder.call(fn, [x, y])
            if isinstance(a, types.Boolean):
                return getattr(builder, bool_op)(x, y)
            compare = builder.icmp_signed if a.signed else builder.icmp_unsigned
            return builder.select(compare(predicate, x, y), x, y)
        return a(a, b), codegen

    typer.__name__ = name
    return intrinsic(typer)


maximum = _extreme("maximum", ">", "or_")
minimum = _extreme("minimum", "<", "and_")


# Float sums of a fused kernel's row go through a buffer and `pairwise_sum`:
# NumPy's own pairwise summation (8 partial sums over blocks of up to 128,
# halves split at multiples of 8), so a float64 sum is bit-identical to
# np.sum's, and the element loop filling the buffer vectorises.
@numba.njit(cache=True)
def pairwise_sum(a, start, n, zero):
    """NumPy's pairwise sum of ``a[start:start + n]``, addition for addition,
    for a contiguous 1-D buffer ``a`` (``zero``: 0 of a's dtype, so float32
    sums stay float32 as NumPy's do).

    One block (a row of up to 128) is added with eight scalar accumulators:
    a single block is bound by the latency of each lane's chain of adds, and
    this form inlines into the caller's loop. Longer sums go through
    ``_pairwise_tree``, whose many independent blocks are bound by throughput
    and run as vectors; float32 and float64 ones call it as an external
    function (``register_pairwise_tree``).
    """
    start = max(start, 0)  # a no-op telling LLVM indices are non-negative (vectorises)
    if n < 8:
        res = zero
        for i in range(start, start + n):
            res += a[i]
        return res
    if n > 128:
        return _tree_sum(a, start, n, zero)
    r0, r1, r2, r3 = a[start], a[start + 1], a[start + 2], a[start + 3]
    r4, r5, r6, r7 = a[start + 4], a[start + 5], a[start + 6], a[start + 7]
    i = 8
    while i < n - n % 8:
        p = start + i
        r0 += a[p]
        r1 += a[p + 1]
        r2 += a[p + 2]
        r3 += a[p + 3]
        r4 += a[p + 4]
        r5 += a[p + 5]
        r6 += a[p + 6]
        r7 += a[p + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for j in range(i, n):
        res += a[start + j]
    return res


@intrinsic
def _frame_array(typingctx, size, like):
    """A 1-D array of ``size`` (a constant) elements of ``like``'s type in the
    calling function's stack frame (an alloca: no heap allocation, no
    reference count); valid until that function returns."""
    if not isinstance(size, types.IntegerLiteral) or not isinstance(like, types.Number):
        return None
    count = size.literal_value
    arrty = types.Array(like, 1, "C")

    def codegen(context, builder, sig, args):
        scalar = context.get_value_type(like)
        data = cgutils.alloca_once(builder, scalar, size=count)
        array = context.make_array(arrty)(context, builder)
        intp = context.get_value_type(types.intp)
        itemsize = context.get_abi_sizeof(scalar)
        populate_array(array, data=data, shape=[ir.Constant(intp, count)],
                       strides=[ir.Constant(intp, itemsize)],
                       itemsize=ir.Constant(intp, itemsize), meminfo=None)
        return array._getvalue()
    return arrty(size, like), codegen


# The tree's depth is below 64 for any length (each level halves it).
_TREE_DEPTH = 64


@numba.njit(cache=True)
def _pairwise_tree(a, start, n, zero):
    """pairwise_sum's tree (n > 128 at the top), its blocks as vector sums.

    A node whose children are leaves, or whose grandchildren all are, sums
    those 2 or 4 leaves together, their chains of adds interleaved (the same
    additions per leaf, in the same order): 4 or 8 independent vector adds in
    flight where one leaf has 2. A node's sum is its left child's plus its
    right child's, as in NumPy's recursion; the walk keeps its own stack (in
    the function's frame) because numba's on-disk cache cannot reload a
    recursive function."""
    starts = _frame_array(_TREE_DEPTH, start)
    lengths = _frame_array(_TREE_DEPTH, start)
    stages = _frame_array(_TREE_DEPTH, start)   # 0: new, 1: left running, 2: right running
    left_sums = _frame_array(_TREE_DEPTH, zero)
    right_sums = _frame_array(_TREE_DEPTH, zero)
    starts[0], lengths[0], stages[0] = start, n, 0
    depth = 1
    while True:
        top = depth - 1
        s, m = starts[top], lengths[top]
        half = _half(m)
        right = m - half  # >= half: the larger child
        if stages[top] == 1:  # the left child's sum arrived: on to the right one
            stages[top] = 2
            starts[depth], lengths[depth], stages[depth] = s + half, right, 0
            depth += 1
            continue
        if stages[top] == 2:
            value = left_sums[top] + right_sums[top]
        elif m <= 128:
            value = _leaf_sums_1(a, s, m, zero)[0]
        elif right <= 128:
            left_sum, right_sum = _leaf_sums_2(a, s, s + half, half, right, zero)
            value = left_sum + right_sum
        elif half > 128 and half - _half(half) <= 128 and right - _half(right) <= 128:
            # both children split into two leaves each
            q, r = _half(half), _half(right)
            sums = _leaf_sums_4(a, s, s + q, s + half, s + half + r,
                                q, half - q, r, right - r, zero)
            value = (sums[0] + sums[1]) + (sums[2] + sums[3])
        else:
            stages[top] = 1
            starts[depth], lengths[depth], stages[depth] = s, half, 0
            depth += 1
            continue
        depth -= 1
        if depth == 0:
            return value
        if stages[depth - 1] == 1:  # the parent's left child
            left_sums[depth - 1] = value
        else:
            right_sums[depth - 1] = value


# ------------------------------------------- the tree as one external function per dtype
#
# Linked into a kernel, the tree's vector leaf sums were optimised and
# generated again with every reduction of a float row: 0.33 s of a first
# call per reduction site. Kernels call it as an external function instead
# (external.py); lowering a float sum calls ``register_pairwise_tree`` first.

@intrinsic
def _borrowed_vector(typingctx, data, size, like):
    """A borrowed 1-D array of ``size`` elements of ``like``'s type at ``data``."""
    array_type = types.Array(like, 1, "C")

    def codegen(context, builder, sig, args):
        data, size, _ = args
        element = context.get_data_type(like)
        itemsize = context.get_constant(types.intp, context.get_abi_sizeof(element))
        array = context.make_array(array_type)(context, builder)
        populate_array(array, data=builder.bitcast(data, element.as_pointer()), shape=[size],
                       strides=[itemsize], itemsize=itemsize, meminfo=None)
        return array._getvalue()

    return array_type(data, size, like), codegen


def _tree_float64(data, start, n):
    zero = np.float64(0)
    return _pairwise_tree(_borrowed_vector(data, start + n, zero), start, n, zero)


def _tree_float32(data, start, n):
    zero = np.float32(0)
    return _pairwise_tree(_borrowed_vector(data, start + n, zero), start, n, zero)


_TREES = ExternalFunctions(
    "jitaic_pairwise_tree", {np.dtype(np.float64): _tree_float64,
                             np.dtype(np.float32): _tree_float32},
    lambda dtype: numba.from_dtype(dtype)(types.voidptr, types.intp, types.intp))
# Compile (or load from numba's cache) the tree for float32 or float64 sums,
# once per process, and register it with LLVM by name.
register_pairwise_tree = _TREES.register


@intrinsic
def _call_tree(typingctx, a, start, n):
    """The registered tree of ``a``'s dtype over ``a[start:start + n]``."""
    symbol = _TREES.symbol(str(a.dtype))

    def codegen(context, builder, sig, args):
        data = builder.bitcast(context.make_array(sig.args[0])(context, builder, args[0]).data,
                               ir.IntType(8).as_pointer())
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(context.get_value_type(a.dtype),
                                            [data.type, args[1].type, args[2].type]), symbol)
        return builder.call(function, [data, args[1], args[2]])

    return a.dtype(a, types.intp, types.intp), codegen


def _tree_sum(a, start, n, zero):
    """_pairwise_tree, called out of line for float32 and float64."""


@overload(_tree_sum)
def _tree_sum_in_numba(a, start, n, zero):
    if np.dtype(str(a.dtype)) in _TREES.implementations:
        return lambda a, start, n, zero: _call_tree(a, start, n)
    return lambda a, start, n, zero: _pairwise_tree(a, start, n, zero)


@numba.njit(cache=True)
def _half(n):
    """The left child's length in NumPy's pairwise tree: half, a multiple of 8."""
    half = n // 2
    return half - half % 8


# 256-bit loads: the leaves read a buffer a kernel has just filled, and a load
# wider than the stores that wrote its elements cannot take them from the
# store buffer and stalls (512-bit loads measured ~10 ns slower a call).
VECTOR_BYTES = 32


def _leaf_sums(leaves: int):
    """An intrinsic ``(buffer, *starts, *lengths, zero)`` returning the pairwise
    leaf sum of each ``buffer[start:start + n]`` (n >= 8, a contiguous 1-D
    array), as NumPy computes a leaf: lane j sums elements j, j + 8, j + 16,
    ... in order; the lanes combine as ((0+1)+(2+3))+((4+5)+(6+7)); the rest
    is added one by one.

    Written as vector accumulators (two of 4 float64 lanes, one of 8 float32):
    LLVM keeps eight scalar accumulators scalar (measured 1 cycle an element;
    NumPy's C loop is vectorised by the C compiler), and the lane-wise adds
    are the same IEEE additions in the same order. The leaves' blocks advance
    together while all have blocks left.
    """
    def typer(typingctx, buffer, *rest):
        zero = rest[-1]
        return types.UniTuple(zero, leaves)(buffer, *rest), _leaf_sums_codegen(leaves)

    return fixed_arity_intrinsic(f"_leaf_sums_{leaves}", 2 * leaves + 2, typer, __name__)


def _wrapping(instruction: str):
    """The typer of signed integer arithmetic that wraps around, as NumPy's
    loops do: numba marks it ``nsw`` (no signed wrap), which lets LLVM assume
    no overflow (``x * 64 != 0`` became ``x != 0``)."""
    def typer(typingctx, a, b):
        if not (isinstance(a, types.Integer) and a.signed and a == b):
            return None

        def codegen(ctx, builder, sig, args):
            return getattr(builder, instruction)(*args)

        return a(a, b), codegen

    return typer


def fixed_arity_intrinsic(name: str, arity: int, typer, module: str):
    """``numba.extending.intrinsic`` over ``typer(typingctx, *args)`` for
    exactly ``arity`` arguments: numba reads an intrinsic's parameters from its
    signature, so one with ``*args`` cannot be typed. Bind the result to the
    attribute ``name`` of ``module``: numba's on-disk cache of code calling it
    finds it there by name."""
    names = ", ".join(f"a{i}" for i in range(arity))
    namespace = {"typer": typer, "__name__": module}
    exec(f"def {name}(typingctx, {names}):\n    return typer(typingctx, {names})\n", namespace)
    return intrinsic(namespace[name])


def _leaf_sums_codegen(leaves: int):
    def codegen(context, builder, sig, args):
        buffer, starts, lengths = args[0], args[1:1 + leaves], args[1 + leaves:1 + 2 * leaves]
        scalar = context.get_value_type(sig.return_type.dtype)
        itemsize = context.get_abi_sizeof(scalar)
        width = min(8, VECTOR_BYTES // itemsize)  # lanes per vector register
        vector = ir.VectorType(scalar, width)
        data = context.make_array(sig.args[0])(context, builder, buffer).data  # no refcount
        bases = [builder.gep(data, [start]) for start in starts]
        index = lengths[0].type
        eight, one = ir.Constant(index, 8), ir.Constant(index, 1)
        parts = range(0, 8, width)

        def load(base, offset):  # lanes offset .. offset + width - 1
            at = builder.bitcast(builder.gep(base, [offset]), vector.as_pointer())
            return builder.load(at, align=itemsize)

        def add_blocks(leaf_set, first, stop):
            with cgutils.for_range_slice(builder, first, stop, one) as (block, _):
                offset = builder.mul(block, eight)
                for leaf in leaf_set:
                    for p, acc in zip(parts, accs[leaf]):
                        lanes = load(bases[leaf], builder.add(offset, ir.Constant(index, p)))
                        builder.store(builder.fadd(builder.load(acc), lanes), acc)

        accs = [[cgutils.alloca_once_value(builder, load(base, ir.Constant(index, p)))
                 for p in parts] for base in bases]
        blocks = [builder.sdiv(n, eight) for n in lengths]
        together = blocks[0]
        for b in blocks[1:]:
            together = builder.select(builder.icmp_signed("<", b, together), b, together)
        add_blocks(range(leaves), one, together)
        sums = []
        for leaf in range(leaves):
            add_blocks([leaf], together, blocks[leaf])
            lanes = [builder.extract_element(builder.load(acc), ir.Constant(ir.IntType(32), j))
                     for acc in accs[leaf] for j in range(width)]
            pairs = [builder.fadd(lanes[j], lanes[j + 1]) for j in range(0, 8, 2)]
            res = cgutils.alloca_once_value(builder, builder.fadd(
                builder.fadd(pairs[0], pairs[1]), builder.fadd(pairs[2], pairs[3])))
            done = builder.mul(blocks[leaf], eight)
            with cgutils.for_range_slice(builder, done, lengths[leaf], one) as (i, _):
                element = builder.load(builder.gep(bases[leaf], [i]))
                builder.store(builder.fadd(builder.load(res), element), res)
            sums.append(builder.load(res))
        return context.make_tuple(builder, sig.return_type, sums)

    return codegen


_leaf_sums_1, _leaf_sums_2, _leaf_sums_4 = (_leaf_sums(k) for k in (1, 2, 4))


@numba.njit(cache=True)
def mask_words(mask):
    """A C-contiguous 1-D boolean mask's leading multiple of 8 entries as
    uint64 words: a zero word is 8 false entries, skipped at once."""
    return mask[: mask.shape[0] // 8 * 8].view(np.uint64)


# numba's type of a NumPy Generator: what an object-mode block making one
# (np.random.default_rng) declares
GENERATOR = numba.typeof(np.random.default_rng(0))


def from_numpy(result: object, name: str, where: str, kinds: tuple) -> tuple:
    """A NumPy callback's result (an array, a scalar, a tuple of them) as the
    values its object-mode block declares: C-contiguous arrays of the shapes
    and dtypes fixed while tracing ((dtype, shape) each), Python scalars for
    0-d results. A shape that differs (one the data decides) raises."""
    from jitaic.ir.ops.callbacks import result_leaves

    leaves = [np.asarray(leaf) for leaf in result_leaves(result)]
    for leaf, (_, shape) in zip(leaves, kinds, strict=True):
        if leaf.shape != shape:
            raise ValueError(f"{name} returned an array of shape {leaf.shape} where tracing "
                             f"it gave {shape}: its result's shape depends on the values, "
                             f"which compiled code cannot follow{where}")
    return tuple(np.ascontiguousarray(leaf, dtype) if shape else leaf.astype(dtype).item()
                 for leaf, (dtype, shape) in zip(leaves, kinds, strict=True))


@numba.njit(cache=True)
def _clamped(bound, step, size):
    """A slice bound with Python's rules: negative counts from the end, then
    clamp to [0, size] (to [-1, size - 1] for a negative step)."""
    if bound < 0:
        bound += size
        if bound < 0:
            bound = -1 if step < 0 else 0
    elif bound >= size:
        bound = size - 1 if step < 0 else size
    return bound


@numba.njit(cache=True)
def slice_range(start, stop, step, size):
    """(first index, count) of ``start:stop:step`` on an axis of ``size``."""
    start, stop = _clamped(start, step, size), _clamped(stop, step, size)
    if step > 0:
        count = (stop - start - 1) // step + 1 if start < stop else 0
    else:
        count = (start - stop - 1) // -step + 1 if stop < start else 0
    return start, count


@numba.njit(cache=True)
def combine_postfix(sums, program):
    """Add chunk sums in the order of a postfix ``program`` (1: push the next
    chunk's sum, 0: replace the top two by their sum): NumPy's pairwise tree
    above the chunks, for rows longer than one buffer."""
    stack = np.empty(64, sums.dtype)
    top, k = 0, 0
    for op in program:
        if op:
            stack[top] = sums[k]
            top += 1
            k += 1
        else:
            stack[top - 2] += stack[top - 1]
            top -= 1
    return stack[0]


# Products have no such order to match (NumPy multiplies sequentially, which
# does not vectorise): `reassoc` alone lets LLVM keep several partial products.


@numba.njit(fastmath={"reassoc"}, cache=True)
def prod_reassoc(buf, n):
    """``buf[0] * ... * buf[n - 1]`` (n >= 1), in any association order."""
    p = buf[0]
    for j in range(1, n):
        p *= buf[j]
    return p


_HUGE_MIN_BYTES = 1 << 22  # as buffers.MIN_BYTES


@numba.njit(cache=True)
def new_tape_pool(first):
    """A tape slot's pool: a one-element typed list holding its buffer between
    calls. Built by a cached function: numba.typed.List([...]) in Python
    compiled numba's list code in every process (~0.45 s of a first call)."""
    pool = numba.typed.List()
    pool.append(first)
    return pool


@numba.njit(cache=True)
def tape_start(pool):
    """The buffer a call's tape starts with: the one the last call grew."""
    return pool[0]


@numba.njit(cache=True)
def tape_push(pool, tape, row, count):
    """Store ``row`` at ``tape[count]``, doubling the tape first when it is full.

    The grown buffer goes back to the tape's ``pool`` (kept by the compiled
    function), so the next call starts with it: page faults on fresh memory,
    not the copying, dominate a growing tape's cost. Big ones get huge pages.
    """
    if count >= tape.shape[0]:
        bigger = np.empty((2 * tape.shape[0],) + tape.shape[1:], tape.dtype)
        if bigger.nbytes >= _HUGE_MIN_BYTES:
            huge_pages(bigger)
        bigger[: tape.shape[0]] = tape
        tape = bigger
        pool[0] = tape
    tape[count] = row
    return tape


# Bound by name: generated code calls them (rt.wrapping_add), and numba's
# on-disk cache finds them here.
wrapping_add = fixed_arity_intrinsic("wrapping_add", 2, _wrapping("add"), __name__)
wrapping_sub = fixed_arity_intrinsic("wrapping_sub", 2, _wrapping("sub"), __name__)
wrapping_mul = fixed_arity_intrinsic("wrapping_mul", 2, _wrapping("mul"), __name__)
