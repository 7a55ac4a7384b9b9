"""numba's np.linalg (LAPACK) behind cached helpers; generated code calls
them as ``lapack.*``.

Typing a call to numba's own overload compiles it (and the unicode code its
error messages build) into every kernel, ~2.8 s of a first call with
np.linalg.solve; a cached helper is typed once per installation and loaded
after."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def solve(a, b):
    return np.linalg.solve(a, b)


@numba.njit(cache=True)
def inv(a):
    return np.linalg.inv(a)


@numba.njit(cache=True)
def det(a):
    return np.linalg.det(a)


@numba.njit(cache=True)
def cholesky(a):
    return np.linalg.cholesky(a)


@numba.njit(cache=True)
def slogdet_pair(a):
    """np.linalg.slogdet of one matrix as the array [sign, log|det|]."""
    sign, logdet = np.linalg.slogdet(a)
    out = np.empty(2, a.dtype)
    out[0], out[1] = sign, logdet
    return out


# Factorisations packed into one array per matrix (the layouts of
# ir/ops/linalg.py): real eigenvalues and singular values of complex input are
# stored in its complex dtype.

@numba.njit(cache=True)
def eigh_packed(a):
    """np.linalg.eigh (a's lower triangle): eigenvalues, then eigenvectors."""
    out = np.empty((a.shape[0] + 1, a.shape[0]), a.dtype)
    if a.size:  # numba's LAPACK wrappers refuse empty matrices, NumPy's do not
        w, v = np.linalg.eigh(a)
        out[0], out[1:] = w, v
    return out


@numba.njit(cache=True)
def eig_packed(a):
    """np.linalg.eig; of a real matrix, real results (numba raises when an
    eigenvalue is complex: NumPy's result dtype would depend on the values)."""
    out = np.empty((a.shape[0] + 1, a.shape[0]), a.dtype)
    if a.size:
        w, v = np.linalg.eig(a)
        out[0], out[1:] = w, v
    return out


@numba.njit(cache=True)
def svd_packed(a, full_matrices):
    m, n = a.shape
    k = min(m, n)
    u_cols, v_rows = (m, n) if full_matrices else (k, k)
    out = np.zeros((m + 1 + v_rows, max(u_cols, n, 1)), a.dtype)
    if a.size == 0:  # NumPy's: identities for the full factors of an empty matrix
        for i in range(u_cols):
            out[i, i] = 1
        for i in range(v_rows):
            out[m + 1 + i, i] = 1
        return out
    u, s, vh = np.linalg.svd(a, full_matrices)
    out[:m, :u_cols] = u
    out[m, :k] = s
    out[m + 1:, :n] = vh
    return out


@numba.njit(cache=True)
def qr_packed(a):
    m, n = a.shape
    out = np.zeros((m + min(m, n), n), a.dtype)
    if a.size:
        q, r = np.linalg.qr(a)
        out[:m, :q.shape[1]] = q
        out[m:] = r
    return out


@numba.njit(cache=True)
def pinv(a, rcond):
    """NumPy's algorithm: the SVD of conj(a), singular values above rcond
    times the largest inverted, the others dropped."""
    m, n = a.shape
    if m == 0 or n == 0:
        return np.zeros((n, m), a.dtype)
    u, s, vt = np.linalg.svd(np.conj(a), False)
    cutoff = rcond * s.max()
    scaled = np.empty((s.shape[0], m), a.dtype)
    for i in range(s.shape[0]):
        inverse = 1.0 / s[i] if s[i] > cutoff else 0.0
        for j in range(m):
            scaled[i, j] = inverse * u[j, i]
    return np.dot(np.ascontiguousarray(vt.T), scaled)


@numba.njit(cache=True)
def lstsq(a, b, rcond):
    if a.size == 0 or b.size == 0:  # NumPy's: zeros
        return np.zeros((a.shape[1], b.shape[1]), a.dtype)
    return np.linalg.lstsq(a, b, rcond)[0]
