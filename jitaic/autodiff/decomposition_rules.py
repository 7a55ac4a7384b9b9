"""VJP rules of the matrix factorisations (eigh, svd, qr), pinv and lstsq,
for real matrices (reverse.py refuses complex ones).

The cotangent of a factorisation is packed like its output
(``ir/ops/linalg.py``); the rules slice the factors' cotangents out of it.
Where a formula divides by a difference of eigenvalues or singular values,
or by a singular value, a zero numerator gives zero: a repeated eigenvalue or
a zero singular value then costs nothing when the loss does not depend on
the vectors it leaves undetermined (``eigvalsh``, ``svdvals``, nuclear
norms), where JAX returns NaN; it still gives inf or NaN when the loss does.
"""

from __future__ import annotations

import numpy as np

from jitaic.autodiff.vjp_rules import vjp_rule
from jitaic.errors import UnsupportedError, at, user_location
from jitaic.ir import ops
from jitaic.tracer import numpy as tnp
from jitaic.tracer.core import Tracer, emit
from jitaic.tracer.numpy.common import require


def _t(x: Tracer) -> Tracer:
    return tnp.swapaxes(x, -1, -2)


def _diag(v: Tracer) -> Tracer:
    """Matrices with v (..., k) on their diagonals."""
    k = v.shape[-1]
    return tnp.expand_dims(v, -1) * tnp.as_tracer(np.eye(k, dtype=v.dtype))


def _divided_off_diagonal(x: Tracer, gaps: Tracer) -> Tracer:
    """x / gaps off the diagonal, 0 on it and wherever x is 0 (``gaps`` are
    differences of eigenvalues or squared singular values, 0 on the diagonal
    and where two are equal)."""
    k = x.shape[-1]
    off = tnp.as_tracer(~np.eye(k, dtype=bool))
    safe = tnp.where(off, gaps, 1.0)
    return tnp.where(off & (x != 0), x / safe, 0.0)


def _divided(x: Tracer, by: Tracer) -> Tracer:
    """x / by, 0 wherever x is 0."""
    return tnp.where(x != 0, x / tnp.where(x != 0, by, 1.0), 0.0)


def _read_lower_triangle(g: Tracer) -> Tracer:
    """LAPACK reads a's lower triangle only (symmetric eigenproblems): an entry
    below the diagonal stands for two of the symmetric matrix, the upper
    triangle for none."""
    n = g.shape[-1]
    strictly_lower = tnp.as_tracer(np.tri(n, k=-1, dtype=g.dtype))
    return (g + _t(g)) * strictly_lower + g * tnp.as_tracer(np.eye(n, dtype=g.dtype))


@vjp_rule(ops.eigh)
def _eigh(node, g, a, out):
    """A = V diag(w) V^T: dA's cotangent is V (diag(gw) + F o (V^T gV)) V^T with
    F_ij = 1 / (w_j - w_i)."""
    w, v = out[..., 0, :], out[..., 1:, :]
    gw, gv = g[..., 0, :], g[..., 1:, :]
    gaps = tnp.expand_dims(w, -2) - tnp.expand_dims(w, -1)
    inner = _diag(gw) + _divided_off_diagonal(tnp.matmul(_t(v), gv), gaps)
    return (_read_lower_triangle(tnp.matmul(tnp.matmul(v, inner), _t(v))),)


@vjp_rule(ops.svd)
def _svd(node, g, a, out):
    """A = U diag(s) V^T (Townsend, "Differentiating the singular value
    decomposition", 2016): U [J S + diag(gs) + S K] V^T plus the parts of gU
    and gV outside the spans of U and V, divided by s, where
    J = F o (U^T gU - gU^T U), K = F o (V^T gV - gV^T V), F_ij = 1 / (s_j^2 - s_i^2)."""
    m, n = a.shape[-2:]
    u_cols, v_rows, k = ops.svd_layout(m, n, node.attrs["full_matrices"])
    if (u_cols, v_rows) != (k, k):
        _check_zero(g[..., :m, k:u_cols], "U", "columns", m, n)
        _check_zero(g[..., m + 1 + k:m + 1 + v_rows, :n], "Vh", "rows", m, n)
    u, s, v = out[..., :m, :k], out[..., m, :k], _t(out[..., m + 1:m + 1 + k, :n])
    gu, gs, gv = g[..., :m, :k], g[..., m, :k], _t(g[..., m + 1:m + 1 + k, :n])
    squares = s * s
    gaps = tnp.expand_dims(squares, -2) - tnp.expand_dims(squares, -1)
    ut_gu, vt_gv = tnp.matmul(_t(u), gu), tnp.matmul(_t(v), gv)
    j = _divided_off_diagonal(ut_gu - _t(ut_gu), gaps)
    kk = _divided_off_diagonal(vt_gv - _t(vt_gv), gaps)
    core = j * tnp.expand_dims(s, -2) + _diag(gs) + tnp.expand_dims(s, -1) * kk
    grad = tnp.matmul(tnp.matmul(u, core), _t(v))
    if m > k:  # gU's part outside span(U)
        outside = gu - tnp.matmul(u, ut_gu)
        grad = grad + tnp.matmul(_divided(outside, tnp.expand_dims(s, -2)), _t(v))
    if n > k:  # gV's part outside span(V)
        outside = gv - tnp.matmul(v, vt_gv)
        grad = grad + tnp.matmul(u, _t(_divided(outside, tnp.expand_dims(s, -2))))
    return (grad,)


def _check_zero(g: Tracer, factor: str, what: str, m: int, n: int) -> None:
    """full_matrices=True of a non-square matrix: the singular vectors beyond
    min(m, n) are any basis of a complement, with no derivative; a loss that
    reads them fails when it runs (one that does not pays nothing)."""
    if 0 in g.shape:
        return
    message = (f"the gradient through the {what} of {factor} beyond min(m, n) = "
               f"{min(m, n)} of np.linalg.svd(a, full_matrices=True) of a {m}x{n} matrix "
               f"is not defined (they are any basis of a complement): use "
               f"full_matrices=False")
    require((g == 0).all(), ValueError, message)


@vjp_rule(ops.qr)
def _qr(node, g, a, out):
    """A = QR with m >= n: (gQ + Q P) R^-T, where P is N = gR R^T - Q^T gQ with
    its strict lower triangle replaced by the transpose of its strict upper one."""
    m, n = a.shape[-2:]
    if m < n:
        raise UnsupportedError(f"the gradient of np.linalg.qr of a wide matrix ({m}x{n}) "
                               f"is not supported{at(user_location())}")
    q, r = out[..., :m, :], out[..., m:, :]
    gq, gr = g[..., :m, :], g[..., m:, :]
    upper = tnp.as_tracer(np.triu(np.ones((n, n), dtype=a.dtype)))
    strictly_upper = tnp.as_tracer(np.triu(np.ones((n, n), dtype=a.dtype), 1))
    nn = tnp.matmul(gr, _t(r)) - tnp.matmul(_t(q), gq)
    p = nn * upper + _t(nn * strictly_upper)
    b = gq + tnp.matmul(q, p)
    return (_t(emit(ops.solve, [r, _t(b)], scalar=False)),)


def pinv_cotangent(a: Tracer, p: Tracer, gp: Tracer) -> Tracer:
    """The cotangent of A from that of P = pinv(A), for A of constant rank
    (Golub and Pereyra's derivative of the pseudo-inverse):
    -P^T G P^T + (I - A P) G^T P P^T + P^T P G^T (I - P A)."""
    mm = tnp.matmul
    pt, gt = _t(p), _t(gp)
    projection_a = tnp.as_tracer(np.eye(a.shape[-2], dtype=a.dtype)) - mm(a, p)
    projection_p = tnp.as_tracer(np.eye(a.shape[-1], dtype=a.dtype)) - mm(p, a)
    return (-mm(mm(pt, gp), pt) + mm(mm(projection_a, gt), mm(p, pt))
            + mm(mm(pt, p), mm(gt, projection_p)))


@vjp_rule(ops.pinv)
def _pinv(node, g, a, out):
    return (pinv_cotangent(a, out, g),)


@vjp_rule(ops.lstsq)
def _lstsq(node, g, a, b, out):
    """x = pinv(a) @ b (the minimum-norm solution, at lstsq's cutoff)."""
    p = emit(ops.pinv, [a], {"rcond": node.attrs["rcond"]}, scalar=False)
    return pinv_cotangent(a, p, tnp.matmul(g, _t(b))), tnp.matmul(_t(p), g)


@vjp_rule(ops.eig)
def _eig(node, g, a, out):
    raise UnsupportedError(f"the gradient of np.linalg.eig is not supported (of a "
                           f"symmetric matrix, np.linalg.eigh has one){at(node.loc)}")
