"""The specialisation cache and the inspection API: cache_info, specializations,
lower().as_text()/.source(), functools.wraps, and the decorator forms."""

from __future__ import annotations

import warnings

import numpy as np
from helpers import assert_same

import jitaic
from jitaic import api
from jitaic.errors import RecompileWarning
from jitaic.ir.graph import Graph


def _exp_plus_one(x):
    """Add one to exp(x)."""
    return np.exp(x) + 1.0


def _info(f) -> tuple[int, int, int]:
    info = f.cache_info()
    return info.hits, info.misses, info.entries


def test_same_key_compiles_once_then_hits() -> None:
    f = jitaic.jit(_exp_plus_one)
    x = np.ones((3, 4))
    assert_same(f(x), _exp_plus_one(x))
    assert _info(f) == (0, 1, 1)
    y = np.full((3, 4), 2.0)  # same key, different values
    assert_same(f(y), _exp_plus_one(y))
    assert _info(f) == (1, 1, 1)
    f(x)
    assert _info(f) == (2, 1, 1)
    assert f.cache_info().compile_seconds > 0


def test_cache_info_fields() -> None:
    f = jitaic.jit(_exp_plus_one)
    info = f.cache_info()
    assert (info.hits, info.misses, info.entries) == (0, 0, 0)
    assert info.compile_seconds == 0
    assert {"hits", "misses", "entries", "compile_seconds"} <= set(info._fields)


def test_new_shape_and_new_dtype_each_add_one_entry() -> None:
    f = jitaic.jit(_exp_plus_one)
    f(np.ones((3, 4)))
    f(np.ones((4, 3)))
    assert _info(f) == (0, 2, 2)
    f(np.ones((3, 4), dtype=np.float32))
    assert _info(f) == (0, 3, 3)
    f(np.ones((4, 3)))
    f(np.ones((3, 4), dtype=np.float32))
    assert _info(f) == (2, 3, 3)


def test_layouts_are_separate_entries() -> None:
    f = jitaic.jit(_exp_plus_one)
    base = np.arange(48.0).reshape(6, 8) / 10
    c = base[:3, :4].copy()
    fortran = np.asfortranarray(c)
    strided = base[::2, :4]
    assert c.shape == fortran.shape == strided.shape == (3, 4)
    for arr in (c, fortran, strided):
        assert_same(f(arr), _exp_plus_one(arr))
    assert _info(f) == (0, 3, 3)
    other_strided = (np.arange(48.0).reshape(6, 8) + 1)[::2, :4]
    assert_same(f(other_strided), _exp_plus_one(other_strided))
    assert _info(f) == (1, 3, 3)


def test_new_static_value_is_a_new_entry() -> None:
    def power_n(x, n):
        y = x
        for _ in range(n - 1):
            y = y * x
        return y

    f = jitaic.jit(power_n)
    x = np.arange(4.0)
    assert_same(f(x, 2), x ** 2)
    assert_same(f(x, 3), x ** 3)
    assert_same(f(x, 2), x ** 2)
    assert _info(f) == (1, 2, 2)


def test_static_bool_and_int_of_equal_value_are_different_keys() -> None:
    # True == 1 and hash(True) == hash(1), but NumPy treats them differently.
    fn = lambda x, n: x * 0 + np.array(n)  # noqa: E731
    f = jitaic.jit(fn)
    x = np.arange(3, dtype=np.int8)
    assert_same(f(x, 1), fn(x, 1))
    assert_same(f(x, True), fn(x, True))
    assert f(x, True).dtype == np.int8 and f(x, 1).dtype == np.int64


def test_python_float_values_do_not_recompile() -> None:
    f = jitaic.jit(lambda w, g, lr: w - lr * g)
    w, g = np.ones(5), np.arange(5.0)
    assert_same(f(w, g, 0.1), w - 0.1 * g)
    assert_same(f(w, g, 0.25), w - 0.25 * g)
    assert_same(f(w, g, -3.0), w + 3.0 * g)
    assert _info(f) == (2, 1, 1)


def test_numpy_scalar_values_do_not_recompile() -> None:
    f = jitaic.jit(lambda x, s: x * s)
    x = np.ones(3, dtype=np.float32)
    assert_same(f(x, np.float32(2.0)), x * np.float32(2.0))
    assert_same(f(x, np.float32(-1.5)), x * np.float32(-1.5))
    assert _info(f) == (1, 1, 1)
    f(x, np.float64(2.0))  # a new dtype is a new key
    assert _info(f) == (1, 2, 2)


def test_specializations_records() -> None:
    f = jitaic.jit(_exp_plus_one)
    f(np.ones((3, 4)))
    f(np.ones((3, 4)))
    f(np.ones(5, dtype=np.float32))
    specs = f.specializations()
    assert len(specs) == 2
    by_hits = sorted(specs, key=lambda s: s.hits)
    assert [s.hits for s in by_hits] == [0, 1]
    for spec in specs:
        assert spec.key is not None
        assert "exp" in spec.ir and "add" in spec.ir
        assert "njit" in spec.source or "def " in spec.source
        assert spec.compile_seconds > 0
        assert isinstance(spec.frontend, str)
    assert specs[0].key != specs[1].key
    # cache_info's total may include tracing time on top of the compiles
    total = f.cache_info().compile_seconds
    assert sum(s.compile_seconds for s in specs) <= total + 1e-9


def test_lower_text_source_and_graph() -> None:
    f = jitaic.jit(_exp_plus_one)
    lowered = f.lower(np.ones((3, 4)))
    text = lowered.as_text()
    assert "exp" in text and "f64[3,4]" in text
    source = lowered.source()
    assert isinstance(source, str) and "def " in source
    assert isinstance(lowered.ir, Graph)
    assert {n.op.name for n in lowered.ir.walk()} >= {"exp", "add"}


def test_lower_does_not_run_the_function() -> None:
    f = jitaic.jit(_exp_plus_one)
    f.lower(np.ones(3))
    assert f(np.zeros(3)).tolist() == [2.0, 2.0, 2.0]


def test_wraps() -> None:
    f = jitaic.jit(_exp_plus_one)
    assert f.__name__ == "_exp_plus_one"
    assert f.__doc__ == "Add one to exp(x)."
    assert f.__wrapped__ is _exp_plus_one


def test_bare_decorator() -> None:
    @jitaic.jit
    def double(x):
        return x * 2

    assert isinstance(double, jitaic.JitFunction)
    assert_same(double(np.arange(3)), np.arange(3) * 2)


def test_decorator_with_options_static_argnums() -> None:
    @jitaic.jit(mode="trace", static_argnums=(1,))
    def reshape_to(x, shape):
        return x.reshape(shape) + 1

    x = np.arange(6.0)
    assert_same(reshape_to(x, (2, 3)), x.reshape(2, 3) + 1)
    assert_same(reshape_to(x, (3, 2)), x.reshape(3, 2) + 1)
    assert reshape_to.cache_info().misses == 2


def test_static_argnames_with_string_and_keyword_call() -> None:
    def reduce(x, how="sum"):
        return x.sum(axis=0) if how == "sum" else x.max(axis=0)

    f = jitaic.jit(reduce, mode="trace", static_argnames=("how",))
    x = np.arange(12.0).reshape(3, 4)
    assert_same(f(x, how="sum"), x.sum(axis=0))
    assert_same(f(x, how="max"), x.max(axis=0))
    assert_same(f(x), x.sum(axis=0))
    assert f.cache_info().entries >= 2


def test_static_argnums_on_a_float_makes_it_static() -> None:
    f = jitaic.jit(lambda x, c: x * c, static_argnums=(1,))
    x = np.ones(2)
    assert_same(f(x, 2.0), x * 2.0)
    assert_same(f(x, 3.0), x * 3.0)
    assert f.cache_info().misses == 2


def test_switching_backends_keeps_working() -> None:
    """The reference knob is a debugging aid: toggling it never breaks a function."""
    f = jitaic.jit(_exp_plus_one)
    x = np.linspace(0, 1, 4)
    with jitaic.config.override(backend="reference"):
        assert_same(f(x), _exp_plus_one(x))
    assert_same(f(x), _exp_plus_one(x))
    y = np.ones((2, 2))
    assert_same(f(y), _exp_plus_one(y))
    with jitaic.config.override(backend="reference"):
        assert_same(f(y), _exp_plus_one(y))


def test_separate_functions_have_separate_caches() -> None:
    f = jitaic.jit(_exp_plus_one)
    g = jitaic.jit(_exp_plus_one)
    f(np.ones(2))
    assert _info(g) == (0, 0, 0)


def test_specialisations_in_memory_are_bounded_least_recently_used_first() -> None:
    f = jitaic.jit(_exp_plus_one)
    with jitaic.config.override(backend="reference", max_specializations=3):
        for n in (1, 2, 3):
            f(np.ones(n))
        f(np.ones(1))  # used since: survives the next eviction
        f(np.ones(4))
        assert sorted(s.key for s in f.specializations()) == sorted(
            f.lower(np.ones(n))._spec.key for n in (1, 3, 4))
        assert _info(f) == (1, 4, 3)
        assert_same(f(np.ones(2)), _exp_plus_one(np.ones(2)))  # compiled again
        assert _info(f)[1:] == (5, 3)


def test_recompiling_for_new_shapes_warns_once_naming_the_argument() -> None:
    def scaled(x, scale):
        return x * scale

    f = jitaic.jit(scaled)
    with jitaic.config.override(backend="reference"), warnings.catch_warnings(record=True) \
            as caught:
        warnings.simplefilter("always")
        for n in range(1, 3 * api.RECOMPILES_WARNING):
            f(np.ones(n), 2.0)
    messages = [str(w.message) for w in caught if w.category is RecompileWarning]
    assert len(messages) == 1
    assert messages[0].startswith(f"jitaic compiled {scaled.__qualname__} ({__file__}:")
    assert f"{api.RECOMPILES_WARNING} times, the last for new shapes or types of " \
           f"argument(s) 'x':" in messages[0]
