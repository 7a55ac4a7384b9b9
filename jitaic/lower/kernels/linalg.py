"""Matrix products (NumPy's BLAS called by name, row blocks on threads,
explicit loops where they are faster) and LAPACK routines.
"""

from __future__ import annotations

import contextlib

import numpy as np

from jitaic import config
from jitaic.errors import at
from jitaic.ir import ops
from jitaic.ir.graph import Node, Value
from jitaic.lower import blas
from jitaic.lower.codegen import (
    Emitter,
    Extent,
    astype,
    cast,
    contiguous,
    empty,
    literal,
    np_type,
    zeros,
)
from jitaic.lower.kernels.loops import LoopNest, extent, load, lowering

# numba's np.linalg functions (LAPACK through scipy, as numba binds it; behind
# cached helpers of runtime.py), one call per matrix of the stack. numba
# raises LinAlgError for NaN or inf input where NumPy's LAPACK call returns
# NaNs (docs/differences.md).
LAPACK_CALLS = {ops.solve: "lapack.solve", ops.inv: "lapack.inv", ops.det: "lapack.det",
                ops.slogdet: "lapack.slogdet_pair", ops.cholesky: "lapack.cholesky",
                ops.eigh: "lapack.eigh_packed", ops.eig: "lapack.eig_packed",
                ops.svd: "lapack.svd_packed", ops.qr: "lapack.qr_packed", ops.pinv: "lapack.pinv",
                ops.lstsq: "lapack.lstsq"}
# the attributes passed after the matrices, in this order
LAPACK_ATTRIBUTES = {ops.svd: ("full_matrices",), ops.pinv: ("rcond",), ops.lstsq: ("rcond",)}


@lowering(*LAPACK_CALLS)
def _lapack(em: Emitter, node: Node) -> None:
    out, call = node.output, LAPACK_CALLS[node.op]
    name = em.define(out)
    stack = node.inputs[0].shape[:-2]
    attributes = "".join(f", {node.attrs[a]!r}" for a in LAPACK_ATTRIBUTES.get(node.op, ()))
    if not stack:
        result = f"{call}({', '.join(em(v) for v in node.inputs)}{attributes})"
        em.line(f"{name} = {result if out.type.ndim else f'{np_type(out.dtype)}({result})'}")
        return
    em.line(f"{name} = {empty(out.shape, out.dtype)}")
    index = [em.fresh(f"i{d}") for d in range(len(stack))]
    with em.loops(list(zip(index, stack, strict=True))):
        at = ", ".join(index)
        result = f"{call}({', '.join(f'{em(v)}[{at}]' for v in node.inputs)}{attributes})"
        em.line(_store_item(f"{name}[{at}]", result, out.type.ndim > len(stack)))


def _store_item(target: str, result: str, is_array: bool) -> str:
    """``target = result`` for one item of a stack (a matrix's factorisation,
    one product of a batch). An array result is copied by a cached helper
    (runtime.copy_into): numba's own assignment of an array into a subscript
    compiles its broadcasting setitem into every caller."""
    return f"rt.copy_into({target}, {result})" if is_array else f"{target} = {result}"


def _as_dtype(em: Emitter, v: Value, dtype: np.dtype, contiguous: bool = True) -> str:
    if v.dtype != dtype:
        return astype(em(v), dtype)
    return em.contiguous(v) if contiguous else em(v)


def _vector_matrix_loops(em: Emitter, a: Value, b: Value, out: Value) -> None:
    """``out = a @ b`` (1-D @ 2-D) as ``out[j] += a[k] * b[k, j]`` over b's rows:
    loads index the arrays the views look into, so the row loop vectorises."""
    rows, cols = extent(em, b, 0), extent(em, b, 1)
    name = em.define(out)
    em.line(f"{name} = {zeros((cols,), out.dtype)}")
    k, j, ak = em.fresh("k"), em.fresh("j"), em.fresh("ak")
    with em.loops([(k, rows)]):
        element = load(em, a, LoopNest((rows,), (k,)))
        em.line(f"{ak} = {cast(element, a.dtype, out.dtype)}")
        with em.loops([(j, cols)]):
            element = load(em, b, LoopNest((rows, cols), (k, j)))
            em.line(f"{name}[{j}] += {ak} * {cast(element, b.dtype, out.dtype)}")


def _check_core_dims(em: Emitter, a: Value, b: Value, loc: object) -> None:
    """matmul's contracted extents, when one is known at run time only (the
    same run-time extent on both sides, as in ``x[:i] @ x[:i]``, agrees)."""
    ka, kb = extent(em, a, a.type.ndim - 1), extent(em, b, max(b.type.ndim - 2, 0))
    if str(ka) == str(kb):
        return
    with em.if_(f"{ka} != {kb}"):
        em.raise_(f"rt.ContractedMismatch({ka}, {kb}, {at(loc)!r})")


# BLAS does this many multiply-adds in the time a fused loop takes for one
# element: a matrix product of PARALLEL_MIN_WORK * 16 = 2^22 multiply-adds
# (~0.1 ms of one core) is worth splitting across threads, when the BLAS runs
# on one thread.
MULTIPLY_ADDS_PER_LOOP_ELEMENT = 16


@lowering(ops.matmul)
def _matmul(em: Emitter, node: Node) -> None:
    a, b = node.inputs
    out = node.output
    dtype = out.dtype
    k = a.shape[-1]
    if None in (k, b.shape[max(b.type.ndim - 2, 0)]):
        _check_core_dims(em, a, b, node.loc)
    if dtype.kind == "f" and config.get("numpy_blas") and blas.AVAILABLE:
        _numpy_blas_matmul(em, a, b, out)
        return
    if not (a.type.static and b.type.static) and dtype.kind == "f" and \
            a.type.ndim <= 2 and b.type.ndim <= 2 and a.type.ndim + b.type.ndim < 4:
        # Views with run-time extents in loop bodies (x[:i] @ y[:i],
        # v @ A[:, i:m]) are read in place, not copied to contiguous buffers:
        # numba's np.dot takes strided vectors (calling the same BLAS dot as
        # NumPy); vector-matrix products loop over the matrix in memory order.
        if (a.type.ndim, b.type.ndim) == (1, 2):
            _vector_matrix_loops(em, a, b, out)
            return
        helper = "np.dot" if b.type.ndim == 1 and a.type.ndim == 1 else "rt.mat_vec"
        name = em.define(out)
        em.line(f"{name} = {helper}({_as_dtype(em, a, dtype, False)}, "
                f"{_as_dtype(em, b, dtype, False)})")
        return
    name = em.define(out)
    if out.type.size == 0 or k == 0:
        zero = literal(0, dtype)
        em.line(f"{name} = " + (zero if out.type.ndim == 0 else
                                zeros(out.shape, dtype)))
        return
    an, bn = em.fresh("lhs"), em.fresh("rhs")
    em.line(f"{an} = {_as_dtype(em, a, dtype)}")
    em.line(f"{bn} = {_as_dtype(em, b, dtype)}")
    if a.type.ndim <= 2 and b.type.ndim <= 2:
        k = extent(em, a, a.type.ndim - 1)
        if _splits_rows(em, a, b, out, k):
            em.line(f"{name} = rt.split_dot({an}, {bn}, rt.dot_threads())")
            em.launches_threads = True
            return
        em.line(f"{name} = {_dot(an, a.type.ndim, bn, b.type.ndim, k, out.shape, dtype)}")
        return
    core = out.shape[out.type.ndim - (a.type.ndim > 1) - (b.type.ndim > 1):]
    with _batch_loops(em, a, b, out, name) as index:
        # numba's np.dot takes contiguous matrices only.
        lhs, rhs = (_batch_item(array, v, index) if v.type.ndim <= 2 else
                    contiguous(_batch_item(array, v, index))
                    for array, v in ((an, a), (bn, b)))
        product = _dot(lhs, min(a.type.ndim, 2), rhs, min(b.type.ndim, 2), k, core, dtype)
        em.line(_store_item(f"{name}[{', '.join(index)}]", product, bool(core)))


# NumPy's BLAS, called as NumPy's matmul calls it (lower/blas.py), by operand ranks.
_BLAS_PRODUCTS = {(1, 1): "blas.vec_vec", (1, 2): "blas.vec_mat", (2, 1): "blas.mat_vec",
                  (2, 2): "blas.matmul"}


def _numpy_blas_matmul(em: Emitter, a: Value, b: Value, out: Value) -> None:
    """A float product through NumPy's own BLAS: views (transposes, slices,
    run-time extents) go in as they are; the helpers copy only what BLAS
    cannot read."""
    lhs, rhs = _as_dtype(em, a, out.dtype, False), _as_dtype(em, b, out.dtype, False)
    blas.register_product(out.dtype)  # before the kernel is compiled or loaded
    name = em.define(out)
    if a.type.ndim <= 2 and b.type.ndim <= 2:
        if _splits_rows(em, a, b, out, a.shape[-1]):
            em.line(f"{name} = blas.split_matmul({lhs}, {rhs}, blas.split_threads())")
            em.launches_threads = True
            return
        em.line(f"{name} = {_BLAS_PRODUCTS[a.type.ndim, b.type.ndim]}({lhs}, {rhs})")
        return
    core = (min(a.type.ndim, 2), min(b.type.ndim, 2))
    with _batch_loops(em, a, b, out, name) as index:
        operands = f"{_batch_item(lhs, a, index)}, {_batch_item(rhs, b, index)}"
        target = f"{name}[{', '.join(index)}]"
        if core == (2, 2):
            em.line(f"blas.matmul_into({operands}, {target})")
        else:
            em.line(_store_item(target, f"{_BLAS_PRODUCTS[core]}({operands})", core != (1, 1)))


@contextlib.contextmanager
def _batch_loops(em: Emitter, a: Value, b: Value, out: Value, name: str):
    """Allocate a batched product's result ``name`` and loop over its batch
    dims (one product per matrix); yields the batch index variables."""
    for v in (a, b, out):
        ops.check_static(v.type, "a batched matmul")
    batch = out.shape[: out.type.ndim - (a.type.ndim > 1) - (b.type.ndim > 1)]
    index = [em.fresh(f"b{d}") for d in range(len(batch))]
    em.line(f"{name} = {empty(out.shape, out.dtype)}")
    with em.loops(list(zip(index, batch, strict=True))):
        yield index


def _batch_item(array: str, v: Value, index: list[str]) -> str:
    """The matrix (or vector) of ``v`` at a batch index of the broadcast result."""
    if v.type.ndim <= 2:
        return array
    dims = v.shape[: v.type.ndim - 2]
    offset = len(index) - len(dims)
    return f"{array}[{', '.join(index[offset + j] if d != 1 else '0' for j, d in enumerate(dims))}]"


def _splits_rows(em: Emitter, a: Value, b: Value, out: Value, k: Extent) -> bool:
    """A float matrix-matrix product with enough multiply-adds to split across threads."""
    return (out.dtype.kind == "f" and a.type.ndim == b.type.ndim == 2 and out.type.static
            and isinstance(k, int)
            and em.runs_parallel([("row", a.shape[0])],
                                 out.type.size * k // MULTIPLY_ADDS_PER_LOOP_ELEMENT))


def _dot(lhs: str, lhs_ndim: int, rhs: str, rhs_ndim: int, k: Extent,
         shape: tuple, dtype: np.dtype) -> str:
    """A (batch-free) matrix product: BLAS for floats and complex values (numba's
    np.dot, through rt.dot), loops for integers."""
    if dtype.kind in "fc":
        return f"rt.dot({lhs}, {rhs})"
    lhs2 = f"{lhs}.reshape((1, {k}))" if lhs_ndim == 1 else lhs
    rhs2 = f"{rhs}.reshape(({k}, 1))" if rhs_ndim == 1 else rhs
    product = f"rt.int_matmul({lhs2}, {rhs2})"
    if len(shape) == 2:
        return product
    return f"{product}[0, 0]" if not shape else f"{product}.ravel()"
