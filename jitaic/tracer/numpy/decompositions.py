"""np.linalg's factorisations (eigh, eig, svd, qr) and what NumPy builds on
them (eigvalsh, eigvals, svdvals, pinv, lstsq, matrix_rank).

Each factorisation is one op whose output packs the factors
(``ops.svd_layout`` and the comments in ``ir/ops/linalg.py``); the handlers
slice them out, so the tuple NumPy returns is views of one array. The others
are NumPy's own formulas over those factors.
"""

from __future__ import annotations

import numpy as np

from jitaic.errors import at, user_location
from jitaic.ir import ops
from jitaic.tracer.core import Tracer, emit
from jitaic.tracer.numpy.common import (
    as_tracer,
    astype,
    lapack_operand,
    not_lowered,
    unsupported,
)
from jitaic.tracer.numpy.reductions import amax, count_nonzero, sum_
from jitaic.tracer.numpy.registry import implements
from jitaic.tracer.numpy.shapes import expand_dims, swapaxes
from jitaic.tracer.numpy.ufuncs import apply_ufunc, matmul, real, squared_magnitude

# NumPy's result tuples (named tuples of np.linalg)
_EIGH_RESULT = type(np.linalg.eigh(np.eye(1)))
_EIG_RESULT = type(np.linalg.eig(np.eye(1)))
_SVD_RESULT = type(np.linalg.svd(np.eye(1)))
_QR_RESULT = type(np.linalg.qr(np.eye(1)))


def _eigen_pair(op: ops.Op, x: Tracer, real_values: bool) -> tuple[Tracer, Tracer]:
    packed = emit(op, [x], scalar=False)
    values = packed[..., 0, :]
    return (real(values) if real_values else values), packed[..., 1:, :]


def _hermitian_operand(a, UPLO: str) -> Tracer:
    """The matrix whose lower triangle LAPACK reads: a itself, or for UPLO='U'
    a's conjugate transpose (its lower triangle is a's upper one, conjugated)."""
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    x = lapack_operand(a)
    if UPLO == "L":
        return x
    x = swapaxes(x, -1, -2)
    return apply_ufunc(np.conjugate, x) if x.dtype.kind == "c" else x


@implements(np.linalg.eigh)
def eigh(a, UPLO="L"):
    return _EIGH_RESULT(*_eigen_pair(ops.eigh, _hermitian_operand(a, UPLO), True))


@implements(np.linalg.eigvalsh)
def eigvalsh(a, UPLO="L"):
    return _eigen_pair(ops.eigh, _hermitian_operand(a, UPLO), True)[0]


@implements(np.linalg.eig)
def eig(a):
    return _EIG_RESULT(*_eigen_pair(ops.eig, lapack_operand(a), False))


@implements(np.linalg.eigvals)
def eigvals(a):
    return _eigen_pair(ops.eig, lapack_operand(a), False)[0]


def _svd_factors(x: Tracer, full_matrices: bool) -> tuple[Tracer, Tracer, Tracer]:
    packed = emit(ops.svd, [x], {"full_matrices": bool(full_matrices)}, scalar=False)
    m, n = x.shape[-2:]
    u_cols, v_rows, k = ops.svd_layout(m, n, full_matrices)
    return (packed[..., :m, :u_cols], real(packed[..., m, :k]),
            packed[..., m + 1:m + 1 + v_rows, :n])


@implements(np.linalg.svd)
def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """``hermitian`` is accepted and computed by the general SVD: the same
    singular values; singular vectors may differ from NumPy's in sign."""
    x = lapack_operand(a)
    if not compute_uv:
        return _svd_factors(x, False)[1]
    return _SVD_RESULT(*_svd_factors(x, full_matrices))


@implements(np.linalg.svdvals)
def svdvals(x, /):
    return _svd_factors(lapack_operand(x), False)[1]


@implements(np.linalg.qr)
def qr(a, mode="reduced"):
    x = lapack_operand(a)
    m, n = x.shape[-2:] if x.ndim >= 2 else (0, 0)
    if mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError(f"Unrecognized mode '{mode}'")
    if mode == "raw" or (mode == "complete" and m > n):  # numba has neither: NumPy's
        raise not_lowered(f"np.linalg.qr with mode={mode!r}"
                          + (" of a tall matrix" if mode == "complete" else ""))
    packed = emit(ops.qr, [x], scalar=False)
    r = packed[..., m:, :]
    return r if mode == "r" else _QR_RESULT(packed[..., :m, :min(m, n)], r)


def _static_cutoff(value, name: str) -> float:
    if isinstance(value, Tracer) or np.ndim(value):
        raise unsupported(f"{name} as an array or a traced value (a Python float is)")
    return float(value)


@implements(np.linalg.pinv)
def pinv(a, rcond=None, hermitian=False, *, rtol=np._NoValue):
    """NumPy's cutoffs: rcond 1e-15 by default, max(M, N) * eps with rtol=None."""
    x = lapack_operand(a)
    if rcond is None:
        if rtol is np._NoValue:
            rcond = 1e-15
        elif rtol is None:  # (the op refuses fewer than two dimensions)
            rcond = max(x.shape[-2:], default=0) * np.finfo(x.dtype).eps
        else:
            rcond = rtol
    elif rtol is not np._NoValue:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    return emit(ops.pinv, [x], {"rcond": _static_cutoff(rcond, "the cutoff of np.linalg.pinv")},
                scalar=False)


@implements(np.linalg.lstsq)
def lstsq(a, b, rcond=None):
    """x through LAPACK; the residuals, rank and singular values by NumPy's
    definitions: the residuals are the squared norms of b - a @ x's columns,
    present (one per column) only when a has full column rank and more rows
    than columns, a length known when it runs."""
    x, y = lapack_operand(a), lapack_operand(b)
    for t in (x, y):
        if t.ndim != 2 and not (t is y and t.ndim == 1):
            raise np.linalg.LinAlgError(f"{t.ndim}-dimensional array given. Array must be "
                                        f"two-dimensional{at(user_location())}")
    m, n = x.shape
    if y.shape[0] != m:
        raise np.linalg.LinAlgError(f"Incompatible dimensions{at(user_location())}")
    dtype = np.result_type(x.dtype, y.dtype)
    x, y = astype(x, dtype, copy=False), astype(y, dtype, copy=False)
    columns = y if y.ndim == 2 else expand_dims(y, -1)
    eps = np.finfo(dtype).eps
    cutoff = eps * max(m, n) if rcond is None else _static_cutoff(rcond, "rcond of np.linalg.lstsq")
    solution = emit(ops.lstsq, [x, columns], {"rcond": cutoff}, scalar=False)
    s = _svd_factors(x, False)[1]
    rank = (astype(count_nonzero(s > cutoff * s[0]), np.int32) if min(m, n) else
            np.int32(0))
    if m <= n:
        residuals = as_tracer(np.zeros(0, s.dtype))
    else:
        sums = sum_(squared_magnitude(columns - matmul(x, solution)), axis=0)
        # sums[:count], in range by construction: unread, it is dead code (a
        # read at a run-time index otherwise runs for the error it may raise)
        count = astype(rank == n, np.int64) * sums.shape[0]
        residuals = emit(ops.dyn_getitem, [sums, count],
                         {"index": ((ops.RANGE, None, ops.DYNAMIC, 1),), "bounded": True},
                         scalar=False)
    return (solution if y.ndim == 2 else solution[:, 0]), residuals, rank, s


@implements(np.linalg.matrix_rank)
def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    x = as_tracer(A)
    if x.ndim < 2:
        return astype(apply_ufunc(np.not_equal, x, 0).any(), np.int64)
    s = svd(x, compute_uv=False, hermitian=hermitian)
    if tol is None:
        if rtol is None:
            rtol = max(x.shape[-2:]) * np.finfo(s.dtype).eps
        else:
            rtol = expand_dims(as_tracer(rtol), -1)
        tol = amax(s, axis=-1, keepdims=True) * rtol
    else:
        tol = expand_dims(as_tracer(tol), -1)
    return count_nonzero(s > tol, axis=-1)
