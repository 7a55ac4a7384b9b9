"""Float matrix products call NumPy's own BLAS as NumPy's matmul does
(lower/blas.py): bit for bit NumPy's results, views read in place."""

from __future__ import annotations

import numba
import numpy as np
import pytest

import jitaic
from jitaic import config
from jitaic.lower import blas
from tests.helpers import assert_same

pytestmark = pytest.mark.skipif(not blas.AVAILABLE, reason="NumPy exports no CBLAS")


def _registered(dtype):
    blas.register_product(dtype)  # what lowering a product does first


def matmul(a, b):
    _registered(a.dtype)
    return blas.matmul(a, b)


def mat_vec(a, v):
    _registered(a.dtype)
    return blas.mat_vec(a, v)


def vec_mat(v, b):
    _registered(v.dtype)
    return blas.vec_mat(v, b)


def vec_vec(x, y):
    _registered(x.dtype)
    return blas.vec_vec(x, y)


def layouts(a: np.ndarray) -> dict[str, np.ndarray]:
    """``a``'s values in the memory layouts BLAS reads in place: C and Fortran
    order, and rows of a wider array (a leading dimension past the extent)."""
    wide = np.zeros((a.shape[0], a.shape[1] + 3), a.dtype)
    wide[:, 1:a.shape[1] + 1] = a
    return {"C": a, "F": np.asfortranarray(a), "rows": wide[:, 1:a.shape[1] + 1]}


SHAPES = [(5, 7, 3), (1, 7, 3), (5, 7, 1), (1, 7, 1), (5, 1, 3), (1, 1, 1), (5, 0, 3),
          (0, 4, 3), (64, 100, 33), (300, 200, 100)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("m, k, n", SHAPES)
def test_matrix_products_are_numpys_bit_for_bit(m, k, n, dtype, rng) -> None:
    """Every case of NumPy's matmul loop (zeros, dot, outer loops, gemv either
    way round, gemm) in every in-place layout of both operands."""
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    for a_name, a_in in layouts(a).items():
        for b_name, b_in in layouts(b).items():
            got = matmul(a_in, b_in)
            assert got.dtype == dtype
            np.testing.assert_array_equal(got, a_in @ b_in, err_msg=f"{a_name} @ {b_name}")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("m, k", [(5, 7), (1, 7), (5, 1), (1, 1), (5, 0), (0, 4), (300, 200)])
def test_vector_products_are_numpys_bit_for_bit(m, k, dtype, rng) -> None:
    a = rng.standard_normal((m, k)).astype(dtype)
    w = rng.standard_normal(3 * k).astype(dtype)
    for v in (w[:k], w[::3]):  # contiguous and strided vectors
        for name, a_in in layouts(a).items():
            np.testing.assert_array_equal(mat_vec(a_in, v), a_in @ v, err_msg=name)
            np.testing.assert_array_equal(vec_mat(v, a_in.T), v @ a_in.T, err_msg=name)
        assert vec_vec(v, w[k:2 * k]) == v @ w[k:2 * k]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_matrix_times_its_transpose_is_symmetric_as_numpys(dtype, rng) -> None:
    """NumPy computes a @ a.T with syrk and mirrors the triangle: so does jitaic."""
    a = rng.standard_normal((60, 45)).astype(dtype)
    for got, want in ((matmul(a, a.T), a @ a.T), (matmul(a.T, a), a.T @ a)):
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got, got.T)


def test_operands_blas_cannot_read_are_copied(rng) -> None:
    """Negative strides and matrices with no contiguous axis: NumPy runs its own
    loops there; jitaic copies and calls BLAS (equal within reassociation)."""
    a = rng.standard_normal((40, 60))
    b = rng.standard_normal((60, 50))
    for a_in, b_in in ((a[:, ::-1], b), (a, b[::-1]), (a[::2, ::2], b[::2, ::2]),
                       (a[0, ::-2][None], b[::-2])):
        np.testing.assert_allclose(matmul(a_in, b_in), a_in @ b_in, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(mat_vec(a[:, ::-1], b[::-1, 0]), a[:, ::-1] @ b[::-1, 0],
                               rtol=1e-13)


def test_compiled_products_pass_views_without_copies(rng) -> None:
    """Transposes, slices and batched operands reach BLAS as views, and every
    rank combination matches NumPy bit for bit inside a compiled function."""

    def products(a, b, v, batch):
        return (a @ b, a.T @ a, v @ b, a @ b[:, 0], v @ v, a[1:, 2:] @ b[2:].T.T,
                batch @ b, batch @ a[0], a[0, :5] @ batch.transpose(0, 2, 1).transpose(0, 2, 1))

    a, b = rng.standard_normal((40, 30)), rng.standard_normal((30, 20))
    v, batch = rng.standard_normal(30), rng.standard_normal((3, 5, 30))
    f = jitaic.jit(products)
    for got, want in zip(f(a, b, v, batch), products(a, b, v, batch), strict=True):
        np.testing.assert_array_equal(got, want)
    source = f.lower(a, b, v, batch).source()
    assert "rt.contiguous(" not in source and "rt.dot(" not in source
    assert "blas.matmul_into(" in source  # the batched product writes into its result


def test_products_with_run_time_extents(rng) -> None:
    """Row loops over growing slices (A[i, :i] @ x[:i], x[:i] @ A[:i]) call
    BLAS on the views: NumPy's results bit for bit."""

    def rows(A, x):
        out = np.zeros((2, A.shape[0]))
        for i in range(1, A.shape[0]):
            out[0, i] = A[i, :i] @ x[:i]
            out[1, :i] = x[:i] @ A[:i, :i] + A[:i, :i] @ x[:i]
        return out

    A, x = rng.standard_normal((30, 30)), rng.standard_normal(30)
    np.testing.assert_array_equal(jitaic.jit(rows)(A, x), rows(A, x))


@pytest.mark.parametrize("layout", ["CC", "FC", "CF", "AC"])
def test_large_matrix_products_split_rows_across_threads(layout, rng, monkeypatch) -> None:
    """A big float matmul runs as row blocks of one BLAS kernel, one block per
    thread when the BLAS itself is single-threaded (asked at every call): the
    single call's result within reassociation (OpenBLAS's edge kernels see
    other column splits, as with its own threads)."""

    def operand(shape, kind):
        a = rng.standard_normal(shape)
        return {"C": a, "F": np.asfortranarray(a), "A": a[:, ::-1]}[kind]

    a, b = operand((300, 200), layout[0]), operand((200, 150), layout[1])
    monkeypatch.setattr(blas, "runs_threaded", lambda m, n, k: False)  # a one-thread BLAS
    f = jitaic.jit(lambda a, b: a @ b)
    assert_same(f(a, b), a @ b)
    assert "blas.split_matmul" in f.lower(a, b).source()
    for threads in (1, 2, 3):
        split = blas.split_matmul(a, b, threads)
        np.testing.assert_allclose(split, a @ b, rtol=1e-13, atol=1e-13)
    assert blas.split_threads() in (1, numba.get_num_threads())
    serial = jitaic.jit(lambda a, b: a @ b, parallel=False)
    assert "split_matmul" not in serial.lower(a, b).source()
    assert "split_matmul" not in f.lower(a[:8, :8], b[:8, :8]).source()  # small


def test_which_products_run_on_blas_threads(monkeypatch) -> None:
    """OpenBLAS's own thresholds: gemm from m*n*k = 262144, gemv from a
    9216-element matrix, dot from 10000 elements; run-time extents count as
    threaded; a BLAS set to one thread never is."""
    monkeypatch.setattr(blas, "_KNOWS_THREADS", True)
    monkeypatch.setattr(blas, "_THREADS_QUERY", lambda: 4)
    assert blas.runs_threaded(1000, 1000, 1000) and not blas.runs_threaded(60, 60, 60)
    assert blas.runs_threaded(1000, 1, 1000) and not blas.runs_threaded(90, 1, 100)
    assert blas.runs_threaded(1, 1, 20000) and not blas.runs_threaded(1, 1, 5000)
    assert blas.runs_threaded(None, 10, 10)
    monkeypatch.setattr(blas, "_THREADS_QUERY", lambda: 1)
    assert not blas.runs_threaded(1000, 1000, 1000) and not blas.runs_threaded(None, 1, 1)


def layer(a, w):
    return np.tanh(a * 2.0 + 1.0) @ w


def test_loops_stay_serial_next_to_a_threaded_blas_product(rng, monkeypatch) -> None:
    """numba's OpenMP workers spin for milliseconds after a parallel loop; a
    multi-threaded BLAS on the same cores then waits out their time slices
    (8 ms for a 0.3 ms product). A function whose products may run on BLAS
    threads keeps its loop nests serial; with a one-thread BLAS they run in
    parallel and big products split over numba's threads."""
    a, w = rng.standard_normal((600, 600)), rng.standard_normal((600, 64))
    monkeypatch.setattr(blas, "runs_threaded", lambda m, n, k: True)
    threaded = jitaic.jit(layer)
    assert "numba.prange" not in threaded.lower(a, w).source()
    assert_same(threaded(a, w), layer(a, w))
    monkeypatch.setattr(blas, "runs_threaded", lambda m, n, k: False)
    single = jitaic.jit(layer)
    source = single.lower(a, w).source()
    assert "numba.prange" in source and "split_matmul" in source
    assert_same(single(a, w), layer(a, w))


def test_numbas_dot_on_request(rng, monkeypatch) -> None:
    """config numpy_blas=0 compiles products to numba's np.dot (the BLAS scipy
    bundles): the same values within reassociation, big ones split as well."""
    from jitaic.lower import runtime as rt

    a, b = rng.standard_normal((300, 200)).astype(np.float32), rng.standard_normal((200, 150))
    v = rng.standard_normal(200)

    def products(a, b, v):
        return a @ b, a.T[:, :50] @ a[:50], v @ b, b.T @ v, v @ v, a[None] @ b

    monkeypatch.setattr(blas, "runs_threaded", lambda m, n, k: False)  # a one-thread BLAS
    with config.override(numpy_blas=False):
        f = jitaic.jit(products)
        got = f(a, b, v)
        source = f.lower(a, b, v).source()
    assert_same(got, products(a, b, v), tol=10)
    assert "blas.matmul" not in source and "rt.split_dot" in source
    for threads in (1, 2, 3):
        np.testing.assert_allclose(rt.split_dot(b.T.copy(), b, threads), b.T @ b, rtol=1e-13,
                                   atol=1e-12)
    assert rt.dot_threads() in (1, numba.get_num_threads())
