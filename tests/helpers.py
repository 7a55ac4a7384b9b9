"""Comparison helpers shared by the test modules.

``assert_same`` compares a jitted result with NumPy's the way the whole suite
wants it: same values (NaN equal to NaN), same dtype, same shape, and a NumPy
scalar where NumPy returns a scalar. It recurses through tuples, lists and
dicts, because jitted functions may return pytrees.
"""

from __future__ import annotations

import zlib

import numpy as np


def seed_of(*parts: object) -> int:
    """A stable seed from test identifiers (hash() is salted per process)."""
    return zlib.crc32("|".join(map(str, parts)).encode())


def default_tols(dtype: np.dtype) -> tuple[float, float]:
    """(rtol, atol) for comparing results of this dtype with NumPy's."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":  # as its parts
        dtype = np.real(np.ones((), dtype)).dtype
    if dtype == np.float32:
        return 2e-5, 1e-6
    if dtype.kind == "f":
        return 1e-11, 1e-13
    return 0.0, 0.0


def _is_scalar(x: object) -> bool:
    return isinstance(x, (np.generic, int, float, bool))


def assert_same(got: object, want: object, tol: float = 1.0, values: bool = True,
                path: str = "result") -> None:
    """Assert ``got`` matches NumPy's ``want``: structure, kind, dtype, shape, values.

    ``tol`` scales the default tolerances of each leaf's dtype; ``values=False``
    compares only structure, dtypes and shapes (for ``np.empty``).
    """
    if isinstance(want, dict):
        assert isinstance(got, dict), f"{path}: expected a dict, got {type(got).__name__}"
        assert set(got) == set(want), f"{path}: keys {sorted(got)} != {sorted(want)}"
        for k in want:
            assert_same(got[k], want[k], tol, values, f"{path}[{k!r}]")
        return
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want), (
            f"{path}: expected {type(want).__name__}, got {type(got).__name__}")
        assert len(got) == len(want), f"{path}: length {len(got)} != {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, tol, values, f"{path}[{i}]")
        return
    if want is None or isinstance(want, (str, bytes, np.dtype, type)):
        assert type(got) is type(want) and got == want, f"{path}: {got!r} != {want!r}"
        return
    # Arrays and scalars.
    assert isinstance(got, (np.ndarray, np.generic, int, float, bool)), (
        f"{path}: expected an array or scalar, got {type(got).__name__}")
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), (
            f"{path}: NumPy returns an ndarray (shape {want.shape}), jitaic a "
            f"{type(got).__name__}")
    elif _is_scalar(want):
        assert not isinstance(got, np.ndarray), (
            f"{path}: NumPy returns a scalar {type(want).__name__}, jitaic an ndarray "
            f"of shape {got.shape}")
    got_a, want_a = np.asarray(got), np.asarray(want)
    assert got_a.dtype == want_a.dtype, f"{path}: dtype {got_a.dtype} != NumPy's {want_a.dtype}"
    assert got_a.shape == want_a.shape, f"{path}: shape {got_a.shape} != NumPy's {want_a.shape}"
    if not values:
        return
    rtol, atol = (t * tol for t in default_tols(want_a.dtype))
    if want_a.dtype.kind in "fc":
        np.testing.assert_allclose(got_a, want_a, rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg=path)
    else:
        np.testing.assert_array_equal(got_a, want_a, err_msg=path)


def copy_tree(x: object) -> object:
    """Deep copy of arrays inside tuples/lists/dicts (keeps layouts of copies C)."""
    if isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, dict):
        return {k: copy_tree(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return type(x)(copy_tree(v) for v in x)
    return x


def numpy_result(fn, *args):
    """Run the plain NumPy function on copies of the arguments, warnings silenced."""
    with np.errstate(all="ignore"):
        return fn(*copy_tree(args))


def finite_difference(fn, args, argnum, eps=1e-6):
    """Central differences of scalar ``fn`` with respect to array argument
    ``argnum``; of a complex argument z = x + iy, dfn/dx - 1j dfn/dy (JAX's
    convention, jitaic's)."""
    x = np.array(args[argnum], dtype=np.complex128 if np.iscomplexobj(args[argnum])
                 else np.float64)
    grad = np.zeros_like(x)
    directions = ((1.0, 1.0), (1j, -1j)) if x.dtype.kind == "c" else ((1.0, 1.0),)
    for i in range(x.size):
        for unit, part in directions:
            plus, minus = x.copy(), x.copy()
            plus.flat[i] += eps * unit
            minus.flat[i] -= eps * unit
            hi = fn(*args[:argnum], plus, *args[argnum + 1:])
            lo = fn(*args[:argnum], minus, *args[argnum + 1:])
            grad.flat[i] += part * (hi - lo) / (2 * eps)
    return grad


def emitted_lines(em) -> list[str]:
    """An Emitter's statements after the loop passes, as stripped source
    lines, with the bodies of its outlined parallel loops in place of their
    calls (the order the function runs them in)."""
    from jitaic.lower import loop_ir

    fn = em.function("f", [])
    lines = []
    for stmt in fn.prologue + fn.body:
        helper = next((h for h in fn.helpers if h.name in str(getattr(stmt, "text", ""))), None)
        lines += loop_ir.render_block(helper.body[:-1] if helper else [stmt], "")
    return [line.strip() for line in lines]
