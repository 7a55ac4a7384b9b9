"""np.linalg's factorisations beyond the op table (tests/op_table.py's
"linalg" and "eig" rows, whose gradients test_autodiff checks): complex and
empty matrices, lstsq's run-time number of residuals, gradients where
eigenvalues repeat or singular values vanish, and what is refused.

Factors LAPACK may scale by a sign or phase are compared through products
that do not depend on it.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, finite_difference

import jitaic
from jitaic.errors import UnsupportedError


def _complex_factors(a, b):
    h = a @ a.conj().T
    w, v = np.linalg.eigh(h)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    q, r = np.linalg.qr(a)
    x, residuals, rank, singular = np.linalg.lstsq(a, b)
    return (w, v @ np.diag(w) @ v.conj().T, (u * s) @ vh, s, q @ r, np.abs(r),
            np.linalg.pinv(a), x, residuals, rank, singular, np.linalg.svd(a, compute_uv=False))


def test_factorisations_of_complex_matrices(rng: np.random.Generator) -> None:
    a = rng.normal(size=(5, 3)) + 1j * rng.normal(size=(5, 3))
    b = rng.normal(size=5) + 1j * rng.normal(size=5)
    assert_same(jitaic.jit(_complex_factors)(a, b), _complex_factors(a, b), tol=10.0)


def _on_empty(a, b):
    return (np.linalg.svd(a), np.linalg.svd(a, full_matrices=False), np.linalg.qr(a),
            np.linalg.pinv(a), np.linalg.lstsq(a, b))


@pytest.mark.parametrize("shape", [(0, 3), (3, 0)])
def test_empty_matrices_follow_numpy(shape: tuple[int, int]) -> None:
    """NumPy returns identities, zeros and empty factors; numba's LAPACK
    wrappers refuse empty matrices, so the lowering does it itself."""
    a, b = np.ones(shape), np.ones((shape[0], 2))
    assert_same(jitaic.jit(_on_empty)(a, b), _on_empty(a, b))


def test_lstsq_has_residuals_only_at_full_column_rank() -> None:
    """Their number is known when it runs: one per column of b, or none."""
    f = jitaic.jit(np.linalg.lstsq)
    full, deficient = np.arange(15.0).reshape(5, 3) ** 2, np.ones((5, 3))
    b = np.cos(np.arange(10.0)).reshape(5, 2)
    for a in (full, deficient):
        got, want = f(a, b), np.linalg.lstsq(a, b)
        assert_same(got, want, tol=10.0)
    assert f(full, b)[1].shape == (2,) and f(deficient, b)[1].shape == (0,)


def test_eig_of_a_real_matrix_with_complex_eigenvalues_raises() -> None:
    """NumPy's result dtype would depend on the values; a complex operand works."""
    rotation = np.array([[0.0, 1.0], [-1.0, 0.0]])
    with pytest.raises(ValueError, match="domain change"):
        jitaic.jit(np.linalg.eigvals)(rotation)
    assert_same(jitaic.jit(np.linalg.eigvals)(rotation.astype(complex)),
                np.linalg.eigvals(rotation.astype(complex)))


def complete_qr(a):
    q, r = np.linalg.qr(a, mode="complete")
    return q @ r, np.abs(q), np.abs(r)


def test_qr_modes_numba_lacks_are_numpys_through_the_callback() -> None:
    tall = np.arange(6.0).reshape(3, 2) ** 2
    assert_same(jitaic.jit(complete_qr)(tall), complete_qr(tall), tol=10.0)
    with pytest.raises(UnsupportedError, match=r"mode='complete' of a tall matrix .* at "
                                               r"test_decompositions.py:\d+"):
        jitaic.jit(complete_qr, callbacks=False)(tall)


def test_what_is_refused_names_the_line() -> None:
    tall = np.ones((3, 2))
    with pytest.raises(np.linalg.LinAlgError, match=r"1-dimensional .* at test_decompositions"):
        jitaic.jit(np.linalg.svd)(np.ones(3))
    with pytest.raises(UnsupportedError, match="gradient of np.linalg.qr of a wide matrix"):
        jitaic.grad(lambda a: np.linalg.qr(a)[1].sum())(tall.T.copy())


# ---------------------------------------------------------------- gradients


def _eigenvalue_energy(x):
    return np.sum(np.linalg.eigvalsh(x) ** 2)


def _singular_value_energy(x):
    return np.sum(np.linalg.svd(x, compute_uv=False) ** 2)


@pytest.mark.parametrize("fn, x", [
    (_eigenvalue_energy, np.eye(3)),  # a triple eigenvalue
    (_eigenvalue_energy, np.diag([2.0, 2.0, -1.0])),
    (_singular_value_energy, np.outer(np.arange(1.0, 5.0), np.arange(1.0, 4.0))),  # rank 1
], ids=["identity", "repeated", "rank_one"])
def test_gradients_where_the_vectors_are_undetermined(fn, x) -> None:
    """The loss reads no vector: repeated eigenvalues and zero singular values
    give finite gradients (sum of squares: 2 x on the lower triangle read)."""
    got = jitaic.grad(fn)(x)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, finite_difference(fn, (x,), 0), atol=1e-6)


def _full_u(x):
    u, s, vh = np.linalg.svd(x)
    return np.sum(s) + np.sum(u[:, :2] ** 3)


def _beyond_rank(x):
    u, s, vh = np.linalg.svd(x)
    return np.sum(u[:, -1] ** 3)


def test_full_matrices_gradient_needs_no_vector_beyond_min_m_n(rng) -> None:
    """U's first min(m, n) columns are determined; reading the others fails
    when it runs (they are any basis of a complement)."""
    x = rng.normal(size=(4, 2))
    np.testing.assert_allclose(jitaic.grad(_full_u)(x), finite_difference(_full_u, (x,), 0),
                               rtol=1e-5, atol=1e-7)
    with pytest.raises(ValueError, match=r"columns of U beyond min\(m, n\) = 2 .* "
                                         r"full_matrices=False"):
        jitaic.grad(_beyond_rank)(x)
