"""Matrix products and LAPACK-backed ops on stacks of matrices."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from jitaic.errors import ShapeError
from jitaic.ir.ops.core import Op, broadcast_shapes, check_dtype, check_static, define
from jitaic.ir.types import TensorType, example_value

# ---------------------------------------------------------------- linear algebra


def matmul_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """np.matmul's shape rule, with NumPy's error for mismatched core dims."""
    if len(a) == 0 or len(b) == 0:
        raise ValueError("matmul: Input operand does not have enough dimensions")
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    if a2[-1] != b2[-2] and None not in (a2[-1], b2[-2]):  # run-time: checked when run
        raise ShapeError(
            f"matmul: Input operand 1 has a mismatch in its core dimension 0, with "
            f"gufunc signature (n?,k),(k,m?)->(n?,m?) (size {b2[-2]} is different "
            f"from {a2[-1]}) for shapes {a} and {b}"
        )
    batch = broadcast_shapes(a2[:-2], b2[:-2])
    core = (() if len(a) == 1 else (a2[-2],)) + (() if len(b) == 1 else (b2[-1],))
    return tuple(batch) + core


def _matmul_infer(in_types, attrs, regions):
    a, b = in_types
    dtype = np.matmul(example_value(a.with_shape((1,) * max(a.ndim, 1))),
                      example_value(b.with_shape((1,) * max(b.ndim, 1)))).dtype
    return [TensorType(matmul_shape(a.shape, b.shape), check_dtype(dtype, "matmul"))]


matmul = define("matmul", _matmul_infer, np.matmul, complex=True)


def check_square_stack(t: TensorType, name: str) -> None:
    """NumPy's LinAlgErrors for an operand that is not a stack of square matrices."""
    check_static(t, name)
    if t.ndim < 2:
        raise np.linalg.LinAlgError(f"{t.ndim}-dimensional array given. Array must be at "
                                    f"least two-dimensional")
    if t.shape[-1] != t.shape[-2]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")
    if t.dtype.kind not in "fc":  # the tracer converts integers first, as NumPy does
        raise TypeError(f"{name} of {t.dtype}: jitaic expects a float or complex array here")


def check_matrix_stack(t: TensorType, name: str) -> None:
    """NumPy's LinAlgError for an operand that is not a stack of matrices
    (square or not)."""
    check_static(t, name)
    if t.ndim < 2:
        raise np.linalg.LinAlgError(f"{t.ndim}-dimensional array given. Array must be at "
                                    f"least two-dimensional")
    if t.dtype.kind not in "fc":
        raise TypeError(f"{name} of {t.dtype}: jitaic expects a float or complex array here")


def _linalg(name: str, out_shape: Callable, reference, complex: bool = True) -> Op:
    """A LAPACK-backed op on stacks of square float or complex matrices (the
    last two axes); ``out_shape(a_shape, *other_shapes)``. The dtype stays
    the input's."""

    def infer(in_types, attrs, regions):
        a, *rest = in_types
        check_square_stack(a, f"np.linalg.{name}")
        for t in rest:
            check_static(t, f"np.linalg.{name}")
        return [TensorType(out_shape(a.shape, *(t.shape for t in rest)), a.dtype)]

    return define(name, infer, reference, complex=complex)


def _solve_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    vectors = len(b) == len(a) - 1  # the tracer broadcast the stacks
    if (b if vectors else b[:-1]) != a[:-1] or len(b) not in (len(a) - 1, len(a)):
        raise ShapeError(f"np.linalg.solve: shapes {a} and {b} do not match")
    return b


def _solve_reference(a, b):
    if b.ndim == a.ndim - 1:  # vectors (NumPy 2 reads a 2-D b as matrices)
        return np.linalg.solve(a, b[..., None])[..., 0]
    return np.linalg.solve(a, b)


def _slogdet_reference(a):
    return np.stack(np.linalg.slogdet(a), axis=-1)


# b of solve is a's stack of vectors (b.shape == a.shape[:-1]) or of matrices
# (b.shape[:-2] == a.shape[:-2]); slogdet packs (sign, log|det|) in a last axis
# of 2, so it is one output (VJP rules have one cotangent per node).
solve = _linalg("solve", _solve_shape, _solve_reference)
inv = _linalg("inv", lambda a: a, np.linalg.inv)
det = _linalg("det", lambda a: a[:-2], np.linalg.det)
# (sign, log|det|) packed in one array of the input's dtype (of complex input,
# log|det| is the real part of the second entry)
slogdet = _linalg("slogdet", lambda a: a[:-2] + (2,), _slogdet_reference)
cholesky = _linalg("cholesky", lambda a: a, np.linalg.cholesky)



# ---------------------------------------------------------------- decompositions
# A decomposition's factors are one packed array per matrix, so the node has
# one output and its VJP rule one cotangent: the factors are rows of it (real
# values of a complex decomposition, eigenvalues and singular values, are
# stored in its complex dtype). The layouts below are what the tracer slices
# out, the lowering fills and the VJP rules read.


def svd_layout(m: int, n: int, full_matrices: bool) -> tuple[int, int, int]:
    """(columns of U, rows of Vh, number of singular values) of an m x n matrix."""
    k = min(m, n)
    return (m, n, k) if full_matrices else (k, k, k)


def _svd_shape(a, full_matrices: bool):
    m, n = a[-2:]
    u_cols, v_rows, _ = svd_layout(m, n, full_matrices)
    # U in rows [0, m) (columns [0, u_cols)), S in row m, Vh in the rows after
    return (*a[:-2], m + 1 + v_rows, max(u_cols, n, 1))


def _svd_reference(a, full_matrices):
    m, n = a.shape[-2:]
    u_cols, v_rows, k = svd_layout(m, n, full_matrices)
    out = np.zeros(_svd_shape(a.shape, full_matrices), a.dtype)
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    out[..., :m, :u_cols], out[..., m, :k], out[..., m + 1:, :n] = u, s, vh
    return out


def _eig_reference(decompose):
    def reference(a):
        w, v = decompose(a)
        if w.dtype.kind != a.dtype.kind:  # as numba's eig, which the lowering calls
            raise ValueError("eig() argument must not cause a domain change.")
        return np.concatenate([w[..., None, :], v], axis=-2)
    return reference


def _qr_shape(a):
    m, n = a[-2:]
    return (*a[:-2], m + min(m, n), n)  # Q in rows [0, m), R in the rows after


def _qr_reference(a):
    m, n = a.shape[-2:]
    out = np.zeros(_qr_shape(a.shape), a.dtype)
    q, r = np.linalg.qr(a)
    out[..., :m, :min(m, n)], out[..., m:, :] = q, r
    return out


def _decomposition(name: str, out_shape: Callable, reference, square: bool) -> Op:
    """A LAPACK factorisation of a stack of matrices into one packed array of
    the input's dtype; ``out_shape(a_shape, **attrs)``."""

    def infer(in_types, attrs, regions):
        (a,) = in_types
        (check_square_stack if square else check_matrix_stack)(a, f"np.linalg.{name}")
        return [TensorType(out_shape(a.shape, **attrs), a.dtype)]

    return define(name, infer, reference, complex=True)


# eigh and eig: eigenvalues in row 0, eigenvectors (columns) in rows 1..n.
# eig of a real matrix stays real, and raises when it runs if an eigenvalue is
# complex (NumPy's result dtype would depend on the values).
eigh = _decomposition("eigh", lambda a: (*a[:-2], a[-1] + 1, a[-1]),
                      _eig_reference(np.linalg.eigh), square=True)
eig = _decomposition("eig", lambda a: (*a[:-2], a[-1] + 1, a[-1]),
                     _eig_reference(np.linalg.eig), square=True)
svd = _decomposition("svd", _svd_shape, _svd_reference, square=False)
qr = _decomposition("qr", lambda a: _qr_shape(a), _qr_reference, square=False)


def _pinv_reference(a, rcond):
    return np.linalg.pinv(a, rcond=rcond)


# np.linalg.pinv with a static cutoff (rcond, relative to the largest singular value)
pinv = _decomposition("pinv", lambda a, rcond: (*a[:-2], a[-1], a[-2]), _pinv_reference,
                      square=False)


def _lstsq_infer(in_types, attrs, regions):
    a, b = in_types
    check_matrix_stack(a, "np.linalg.lstsq")
    check_static(b, "np.linalg.lstsq")
    if a.ndim != 2 or b.ndim != 2 or a.shape[0] != b.shape[0] or a.dtype != b.dtype:
        raise ShapeError(f"np.linalg.lstsq: operands {a} and {b} do not match")
    return [TensorType((a.shape[1], b.shape[1]), a.dtype)]


# The least-squares solution x of np.linalg.lstsq, for a matrix b (the tracer
# makes a vector a column); residuals, rank and singular values are other ops.
lstsq = define("lstsq", _lstsq_infer,
               lambda a, b, rcond: np.linalg.lstsq(a, b, rcond=rcond)[0], complex=True)


# ---------------------------------------------------------------- Fourier transforms


def _fft_infer(in_types, attrs, regions):
    (x,) = in_types
    check_static(x, "np.fft")
    if x.ndim < 1 or x.dtype.kind not in "fc" or not x.shape[-1]:
        raise ValueError(f"fft of lanes of a float or complex array of at least one element, "
                         f"got {x}")
    single = x.dtype in (np.float32, np.complex64)
    return [TensorType(x.shape, np.dtype(np.complex64 if single else np.complex128))]


def _fft_reference(x, inverse):
    return np.fft.ifft(x, norm="forward") if inverse else np.fft.fft(x)


# The unnormalised DFT of each lane along the last axis (real lanes as complex
# ones, in their precision): exponent -2 pi i jk/n, or +2 pi i jk/n if
# ``inverse``. np.fft's functions are these with a scaling, padding and the
# moving of axes around them. Its own transpose (the DFT matrix is
# symmetric): the VJP in JAX's convention is the same transform.
fft = define("fft", _fft_infer, _fft_reference, complex=True)
