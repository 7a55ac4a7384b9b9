"""Jitted functions on dask arrays: block by block where the IR says the
function is blockwise along the chunked axes, dask's reduction tree for full
reductions and summed per-block gradients, refusals naming the axis."""

import re

import numpy as np
import pytest

import jitaic
from jitaic.errors import UnsupportedError
from jitaic.lower import disk_cache

da = pytest.importorskip("dask.array")
dask_compute = pytest.importorskip("dask").compute

RNG = np.random.default_rng(7)
X = RNG.standard_normal((1000, 8))
W = RNG.standard_normal((8, 3))


def _layer(x, w):
    return np.tanh(x @ w) * 2.0 + 1.0


def _mean_loss(x, w):
    return np.mean((np.tanh(x @ w) - 0.5) ** 2)


def _sum_loss(x, w):
    return 0.5 * np.sum(np.tanh(x @ w["a"]) * w["b"])


def test_a_blockwise_function_maps_over_the_blocks() -> None:
    x = da.from_array(X, chunks=(300, 8))
    out = jitaic.jit(_layer)(x, W)
    assert isinstance(out, da.Array)
    assert out.chunks == ((300, 300, 300, 100), (3,))
    np.testing.assert_allclose(out.compute(), _layer(X, W), rtol=1e-12)


def test_arguments_chunked_differently_are_unified() -> None:
    y = RNG.standard_normal((1000, 8))

    def hypot_scaled(x, y, s):
        return np.sqrt(x * x + y * y) * s

    out = jitaic.jit(hypot_scaled)(da.from_array(X, chunks=(250, 4)),
                                   da.from_array(y, chunks=(400, 8)), 3.0)
    assert len(out.chunks[0]) > 1 and len(out.chunks[1]) == 2
    np.testing.assert_allclose(out.compute(), hypot_scaled(X, y, 3.0), rtol=1e-12)


def test_several_results_come_from_one_task_per_block() -> None:
    """A nested tuple of results, one transposed: each is a dask array with
    its own chunks, and each block runs the function once."""
    y = RNG.standard_normal((100, 60))

    def parts(y, w):
        h = np.tanh(y[:, :8] @ w)
        return h * 2.0, (h.sum(axis=1), (y + 1.0).T)

    a, (b, c) = jitaic.jit(parts)(da.from_array(y, chunks=(30, 60)), W)
    assert a.chunks == ((30, 30, 30, 10), (3,)) and c.chunks == ((60,), (30, 30, 30, 10))
    assert len({key[0] for key in b.__dask_graph__() if "jitaic-parts" in str(key)}) == 2
    want = parts(y, W)
    for got, expected in zip(dask_compute(a, b, c), (want[0], *want[1]), strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-12)
    (single,) = jitaic.jit(lambda y: (y * 2.0,))(da.from_array(y, chunks=(30, 60)))
    np.testing.assert_array_equal(single.compute(), y * 2.0)
    p, q = jitaic.jit(lambda y: (y * 2.0, (y + 1.0).T))(da.from_array(y, chunks=(30, 25)))
    assert q.chunks == ((25, 25, 10), (30, 30, 30, 10))
    np.testing.assert_allclose(q.compute(), (y + 1.0).T, rtol=0)


def test_axes_that_are_one_chunk_may_be_combined_along() -> None:
    def scan_rows(x):
        return np.cumsum(x, axis=1) - x.max(axis=1, keepdims=True)

    out = jitaic.jit(scan_rows)(da.from_array(X, chunks=(128, 8)))
    np.testing.assert_allclose(out.compute(), scan_rows(X), rtol=1e-12)


@pytest.mark.parametrize("reduce", [np.sum, np.mean, np.max, np.min])
def test_full_reductions_go_through_the_reduction_tree(reduce) -> None:
    def reduced(x, w):
        return reduce(np.tanh(x @ w))

    got = jitaic.jit(reduced)(da.from_array(X, chunks=(300, 8)), W)
    assert isinstance(got, da.Array) and got.shape == ()
    np.testing.assert_allclose(got.compute(), reduced(X, W), rtol=1e-12)


def test_a_float32_mean_keeps_its_dtype() -> None:
    x32 = X.astype(np.float32)
    got = jitaic.jit(lambda x: np.mean(x * x))(da.from_array(x32, chunks=333)).compute()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.mean(x32 * x32), rtol=1e-6)


def test_gradients_of_a_mean_loss_are_weighted_by_block_size() -> None:
    grad = jitaic.jit(jitaic.grad(_mean_loss, argnums=1))
    got = grad(da.from_array(X, chunks=(300, 8)), W)
    assert isinstance(got, da.Array)
    np.testing.assert_allclose(got.compute(), grad(X, W), rtol=1e-10)


def test_gradients_of_a_sum_loss_mirror_a_pytree_of_weights() -> None:
    weights = {"a": W, "b": RNG.standard_normal(3)}
    grad = jitaic.grad(_sum_loss, argnums=1)
    got = grad(da.from_array(X, chunks=(256, 8)), weights)
    want = grad(X, weights)
    assert set(got) == {"a", "b"}
    for key in want:
        np.testing.assert_allclose(got[key].compute(), want[key], rtol=1e-10)


def _message(fn, *args) -> str:
    with pytest.raises(UnsupportedError) as info:
        jitaic.jit(fn)(*args)
    return str(info.value)


def _rechunk_hint(axis_of: str) -> str:
    return re.escape(f"combines elements along {axis_of}, which is chunked: make that "
                     f"axis one chunk (")


@pytest.mark.parametrize("fn, what", [
    (lambda x: np.cumsum(x, axis=0), "cumsum"),
    (lambda x: x - x.mean(axis=0), "sum"),
    (lambda x: x.T @ x, "matmul"),
    (lambda x: x[::-1], "indexing"),
    (lambda x: np.sort(x, axis=0), None),
])
def test_combining_along_a_chunked_axis_names_the_axis_and_the_line(fn, what) -> None:
    message = _message(fn, da.from_array(X, chunks=(300, 8)))
    assert re.search(_rechunk_hint("axis 0 of x") + re.escape("x.rechunk({0: -1}))"),
                     message), message
    assert "test_dask.py:" in message
    if what is not None:
        assert message.startswith(f"{what} at test_dask.py:"), message


def test_a_length_used_as_a_value_is_refused() -> None:
    message = _message(lambda x: x / x.shape[0], da.from_array(X, chunks=(300, 8)))
    assert message.startswith("the function computes with the length of a chunked axis")
    message = _message(lambda x: x + np.arange(x.shape[0])[:, None],
                       da.from_array(X, chunks=(300, 8)))
    assert "length of a chunked axis" in message


def test_other_refusals() -> None:
    x = da.from_array(X, chunks=(300, 8))

    def writes(x):
        x += 1.0
        return x

    assert "writes into its arguments" in _message(writes, x)
    assert "returns an argument itself" in _message(lambda x: (x, x + 1.0), x)
    assert "two axes that follow one chunked axis" in _message(
        lambda x: x[:, 0][:, None] * x[:, 0][None, :], x)
    assert "does not run on a block" in _message(lambda x, y: x + y, x, X)
    with pytest.raises(UnsupportedError, match="with respect to a dask array"):
        jitaic.jit(jitaic.grad(_mean_loss))(x, W)
    with pytest.raises(UnsupportedError, match="a sum or a mean"):
        jitaic.jit(jitaic.grad(lambda x, w: np.max(x @ w), argnums=1))(x, W)


def test_zero_copies_stay_blockwise() -> None:
    """Constants shaped like the block (zeros_like, zeros(len(x))) follow it."""
    def shifted(x):
        return x - np.zeros_like(x) + np.ones(x.shape[0])[:, None]

    out = jitaic.jit(shifted)(da.from_array(X, chunks=(300, 8)))
    np.testing.assert_allclose(out.compute(), shifted(X), rtol=0)


def test_a_cluster_of_process_workers_shares_compiled_code(tmp_path) -> None:
    """Two process workers on localhost compute the map, a reduction and a
    gradient; each kernel is compiled once for the cluster, through the shared
    cache directory."""
    distributed = pytest.importorskip("distributed")
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    env = {"JITAIC_CACHE_DIR": str(cache)}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, env=env) as cluster, \
            distributed.Client(cluster) as client:
        # defined here, they travel by value: the workers cannot import this file
        def layer(x, w):
            return np.tanh(x @ w) * 2.0 + 1.0

        def loss(x, w):
            return np.mean((np.tanh(x @ w) - 0.5) ** 2)

        x = da.from_array(X, chunks=(125, 8))  # 8 blocks of one shape
        np.testing.assert_allclose(jitaic.jit(layer)(x, W).compute(), layer(X, W),
                                   rtol=1e-12)
        np.testing.assert_allclose(jitaic.jit(loss)(x, W).compute(), loss(X, W), rtol=1e-12)
        grad = jitaic.jit(jitaic.grad(loss, argnums=1))
        np.testing.assert_allclose(grad(x, W).compute(), grad(X, W), rtol=1e-10)
        assert len(client.run(lambda: 1)) == 2
    info = disk_cache.summary(str(cache))
    assert info["compiles"] == 3 == info["entries"], info  # layer, loss, gradient


def test_a_sum_scaled_by_an_argument_is_not_split() -> None:
    """s * sum(...) with s a traced argument is still computed right: it is no
    full reduction dask may combine, so it is refused, not summed s times."""
    x = da.from_array(X, chunks=(300, 8))
    message = _message(lambda x, s: s * np.sum(x), x, 2.0)
    assert "sum at test_dask.py" in message
    got = jitaic.jit(lambda x: np.sum(x) / 4.0 * 2.0)(x).compute()
    np.testing.assert_allclose(got, np.sum(X) / 2.0, rtol=1e-12)
