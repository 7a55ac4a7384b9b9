"""NumPy 2's array-API spellings: the vector and matrix gufuncs (vecdot,
matvec, vecmat), np.linalg's versions of functions NumPy already had (with
the standard's argument rules: last-axes defaults, 1-d outer, 3-vector
cross), matrix_transpose, unstack, astype and the cumulative_* scans with
include_initial. Each is written over the handlers of the classic function.
"""

from __future__ import annotations

import numpy as np

from jitaic.errors import at, user_location
from jitaic.tracer.numpy.common import as_tracer, astype, normalize_axes, unsupported
from jitaic.tracer.numpy.creation import full_like
from jitaic.tracer.numpy.indexing import diagonal, getitem
from jitaic.tracer.numpy.linalg import cross, norm, outer, tensordot, trace_
from jitaic.tracer.numpy.reductions import any_, cumprod, cumsum, sum_
from jitaic.tracer.numpy.registry import implements
from jitaic.tracer.numpy.shapes import concatenate, moveaxis, reshape, swapaxes, transpose
from jitaic.tracer.numpy.ufuncs import apply_ufunc, matmul


def _core_mismatch(name: str, signature: str, operand: int, dim: int, got: int,
                   expected: int) -> ValueError:
    return ValueError(f"{name}: Input operand {operand} has a mismatch in its core dimension "
                      f"{dim}, with gufunc signature {signature} (size {got} is different "
                      f"from {expected}){at(user_location())}")


def _too_few_dims(name: str, signature: str, operand: int, has: int, needs: int) -> ValueError:
    return ValueError(f"{name}: Input operand {operand} does not have enough dimensions (has "
                      f"{has}, gufunc core with signature {signature} requires {needs})"
                      f"{at(user_location())}")


def _conjugated(x):
    return apply_ufunc(np.conjugate, x) if x.dtype.kind == "c" else x


@implements(np.vecdot)
def vecdot(x1, x2, axis=-1, axes=None, keepdims=False):
    """sum(conj(x1) * x2) along the axis, in the operands' common dtype
    (wrapping integers, logical for booleans)."""
    if axes is not None:
        raise unsupported("np.vecdot(axes=)")
    a, b = as_tracer(x1), as_tracer(x2)
    for k, v in enumerate((a, b)):
        if v.ndim < 1:
            raise _too_few_dims("vecdot", "(n),(n)->()", k, v.ndim, 1)
    a, b = (moveaxis(v, normalize_axes(axis, v.ndim)[0], -1) for v in (a, b))
    if a.shape[-1] != b.shape[-1]:
        raise _core_mismatch("vecdot", "(n),(n)->()", 1, 0, b.shape[-1], a.shape[-1])
    dtype = np.result_type(a.dtype, b.dtype)
    products = apply_ufunc(np.multiply, _conjugated(a), b)
    if dtype == np.bool_:
        result = any_(products, axis=-1, keepdims=keepdims)
    else:
        result = sum_(products, axis=-1, dtype=dtype, keepdims=keepdims)
    return moveaxis(result, -1, normalize_axes(axis, result.ndim)[0]) if keepdims else result


@implements(np.matvec)
def matvec(x1, x2):
    """The matrix-vector product of each pair of the stacks (BLAS for floats)."""
    a, b = as_tracer(x1), as_tracer(x2)
    signature = "(m,n),(n)->(m)"
    for k, (v, needs) in enumerate(((a, 2), (b, 1))):
        if v.ndim < needs:
            raise _too_few_dims("matvec", signature, k, v.ndim, needs)
    if a.shape[-1] != b.shape[-1]:
        raise _core_mismatch("matvec", signature, 1, 0, b.shape[-1], a.shape[-1])
    return getitem(matmul(a, reshape(b, b.shape + (1,))), (Ellipsis, 0))


@implements(np.vecmat)
def vecmat(x1, x2):
    """conj(x1) times each matrix of the stack x2."""
    a, b = as_tracer(x1), as_tracer(x2)
    signature = "(n),(n,m)->(m)"
    for k, (v, needs) in enumerate(((a, 1), (b, 2))):
        if v.ndim < needs:
            raise _too_few_dims("vecmat", signature, k, v.ndim, needs)
    if a.shape[-1] != b.shape[-2]:
        raise _core_mismatch("vecmat", signature, 1, 0, b.shape[-2], a.shape[-1])
    row = reshape(_conjugated(a), a.shape[:-1] + (1, a.shape[-1]))
    return getitem(matmul(row, b), (Ellipsis, 0, slice(None)))


@implements(np.linalg.vecdot)
def linalg_vecdot(x1, x2, /, *, axis=-1):
    return vecdot(x1, x2, axis=axis)


@implements(np.matrix_transpose, np.linalg.matrix_transpose)
def matrix_transpose(x, /):
    x = as_tracer(x)
    if x.ndim < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {x.ndim}"
                         f"{at(user_location())}")
    return swapaxes(x, -1, -2)


@implements(np.linalg.matmul)
def linalg_matmul(x1, x2, /):
    return apply_ufunc(np.matmul, as_tracer(x1), as_tracer(x2))


@implements(np.linalg.tensordot)
def linalg_tensordot(x1, x2, /, *, axes=2):
    return tensordot(x1, x2, axes)


@implements(np.linalg.outer)
def linalg_outer(x1, x2, /):
    a, b = as_tracer(x1), as_tracer(x2)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are x1.ndim={a.ndim}"
                         f" and x2.ndim={b.ndim}.{at(user_location())}")
    return outer(a, b)


@implements(np.linalg.cross)
def linalg_cross(x1, x2, /, *, axis=-1):
    a, b = as_tracer(x1), as_tracer(x2)
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ValueError(f"Both input arrays must be (arrays of) 3-dimensional vectors, but "
                         f"they are {a.shape[axis]} and {b.shape[axis]} dimensional instead."
                         f"{at(user_location())}")
    return cross(a, b, axis=axis)


@implements(np.linalg.diagonal)
def linalg_diagonal(x, /, *, offset=0):
    return diagonal(x, offset, axis1=-2, axis2=-1)


@implements(np.linalg.trace)
def linalg_trace(x, /, *, offset=0, dtype=None):
    return trace_(x, offset, axis1=-2, axis2=-1, dtype=dtype)


@implements(np.linalg.matrix_norm)
def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    return norm(x, ord, axis=(-2, -1), keepdims=keepdims)


@implements(np.linalg.vector_norm)
def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """np.linalg.norm of the vectors along ``axis``: all axes or several
    merged into one, as NumPy does."""
    x = as_tracer(x)
    shape = x.shape
    if axis is None:
        v, along = reshape(x, (-1,)), 0
    elif isinstance(axis, tuple):
        axes = normalize_axes(axis, x.ndim, "axis")
        rest = tuple(d for d in range(x.ndim) if d not in axes)
        merged = int(np.prod([shape[d] for d in axes], dtype=np.int64))
        v = reshape(transpose(x, axes + rest), (merged, *(shape[d] for d in rest)))
        along = 0
    else:
        v, along = x, axis
    result = norm(v, ord, axis=along)
    if keepdims:
        kept = normalize_axes(tuple(range(len(shape))) if axis is None else axis, len(shape))
        result = reshape(result, tuple(1 if d in kept else n for d, n in enumerate(shape)))
    return result


@implements(np.unstack)
def unstack(x, /, *, axis=0):
    x = as_tracer(x)
    if x.ndim == 0:
        raise ValueError(f"Input array must be at least 1-d.{at(user_location())}")
    moved = moveaxis(x, axis, 0)
    return tuple(getitem(moved, i) for i in range(moved.shape[0]))


@implements(np.astype)
def astype_(x, dtype, /, *, copy=True, device=None):
    return astype(as_tracer(x), dtype, copy=copy)


def _cumulative(name: str, scan, identity: int):
    def cumulative(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
        if out is not None:
            raise unsupported(f"np.{name}(out=)")
        x = as_tracer(x)
        x = reshape(x, (1,)) if x.ndim == 0 else x
        if axis is None:
            if x.ndim >= 2:
                raise ValueError("For arrays which have more than one dimension ``axis`` "
                                 f"argument is required.{at(user_location())}")
            axis = 0
        result = scan(x, axis, dtype)
        if not include_initial:
            return result
        (axis,) = normalize_axes(axis, x.ndim)
        shape = tuple(1 if d == axis else n for d, n in enumerate(result.shape))
        return concatenate([full_like(result, identity, shape=shape), result], axis=axis)

    return cumulative


cumulative_sum = implements(np.cumulative_sum)(_cumulative("cumulative_sum", cumsum, 0))
cumulative_prod = implements(np.cumulative_prod)(_cumulative("cumulative_prod", cumprod, 1))
