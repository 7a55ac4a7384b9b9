"""Reverse-mode autodiff: rule coverage, VJPs against central differences, second
order, a corpus of training-style programs, composition with jit, and errors.

Method (JAX ``check_vjp``, autograd ``check_grads``): for an array function ``f``
and a random cotangent ``c`` the scalar ``sum(f(x) * c)`` is differentiated
with ``jitaic.grad``; the gradient is compared, element by element, with
central differences of the same plain NumPy code in float64, and once more
along a random tangent direction.

Every ``jitaic.grad`` object below is one numba compile per argument shape, so
cases bundle several variants of an op (axes, keepdims, index kinds) into one
function with a tuple result. The file costs about 150 compiles.
"""

from __future__ import annotations

import itertools
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from grad_programs import GRAD_PROGRAMS, GradProgram
from helpers import assert_same, copy_tree, numpy_result, seed_of
from op_table import ROWS, make_args, make_array

import jitaic
from jitaic.autodiff.control_flow import REGION_VJP_RULES
from jitaic.autodiff.vjp_rules import NON_DIFFERENTIABLE, VJP_RULES
from jitaic.errors import CompileError, UnsupportedError
from jitaic.ir import ops
from jitaic.ir.ops import OPS

# The reference interpreter runs these tests, numba a fixed sample of them and
# those marked numba (conftest.py: the test pyramid).
TIER = "reference"

EPS = 1e-6
RTOL, ATOL = 1e-5, 1e-7

# ---------------------------------------------------------------- pytrees (test side)


def tree_flatten(tree: object) -> tuple[list, Callable[[list], object]]:
    """Leaves (dict keys sorted) and a function rebuilding the tree from new leaves."""
    if isinstance(tree, dict):
        keys = sorted(tree)
        subs = [tree_flatten(tree[k]) for k in keys]

        def rebuild_dict(leaves: list) -> dict:
            out, i = {}, 0
            for k, (sub_leaves, sub_rebuild) in zip(keys, subs):
                out[k] = sub_rebuild(leaves[i:i + len(sub_leaves)])
                i += len(sub_leaves)
            return out

        return [x for sub_leaves, _ in subs for x in sub_leaves], rebuild_dict
    if isinstance(tree, (list, tuple)):
        kind = type(tree)
        subs = [tree_flatten(t) for t in tree]

        def rebuild_seq(leaves: list) -> object:
            out, i = [], 0
            for sub_leaves, sub_rebuild in subs:
                out.append(sub_rebuild(leaves[i:i + len(sub_leaves)]))
                i += len(sub_leaves)
            return kind(out)

        return [x for sub_leaves, _ in subs for x in sub_leaves], rebuild_seq
    return [tree], lambda leaves: leaves[0]


def tree_map(fn: Callable, tree: object) -> object:
    leaves, rebuild = tree_flatten(tree)
    return rebuild([fn(x) for x in leaves])


def assert_same_structure(got: object, want: object, path: str) -> None:
    if isinstance(want, dict):
        assert isinstance(got, dict), f"{path}: expected a dict, got {type(got).__name__}"
        assert sorted(got) == sorted(want), f"{path}: keys {sorted(got)} != {sorted(want)}"
        for k in want:
            assert_same_structure(got[k], want[k], f"{path}[{k!r}]")
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want), (
            f"{path}: expected {type(want).__name__}, got {type(got).__name__}")
        assert len(got) == len(want), f"{path}: length {len(got)} != {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same_structure(g, w, f"{path}[{i}]")


# ---------------------------------------------------------------- numerical gradients


def evaluate(f: Callable, args: tuple) -> float:
    """The plain NumPy scalar f(*args), on copies, as a Python float."""
    with np.errstate(all="ignore"):
        value = f(*copy_tree(args))
    value = float(np.asarray(value))
    assert math.isfinite(value), "the NumPy function is not finite at the test point"
    return value


def _with_leaf(args: tuple, i: int, j: int, leaf: object) -> tuple:
    leaves, rebuild = tree_flatten(args[i])
    leaves = list(leaves)
    leaves[j] = leaf
    return args[:i] + (rebuild(leaves),) + args[i + 1:]


def _wide(x: object) -> np.ndarray:
    """An array leaf in float64, or complex128 if complex."""
    return np.asarray(x, np.complex128 if np.iscomplexobj(x) else np.float64)


# A complex element moves along its real and imaginary axes; JAX's convention
# puts dL/dx - 1j * dL/dy in the gradient.
_DIRECTIONS = {"f": ((1.0, 1.0),), "c": ((1.0, 1.0), (1j, -1j))}


def numerical_grad(f: Callable, args: tuple, argnums: tuple[int, ...]) -> tuple:
    """Central differences of a scalar NumPy function, element by element."""
    grads = []
    for i in argnums:
        leaves, rebuild = tree_flatten(args[i])
        out = []
        for j, leaf in enumerate(leaves):
            if isinstance(leaf, float):
                plus = evaluate(f, _with_leaf(args, i, j, leaf + EPS))
                minus = evaluate(f, _with_leaf(args, i, j, leaf - EPS))
                out.append((plus - minus) / (2 * EPS))
                continue
            base = _wide(leaf)
            g = np.zeros_like(base)
            for idx, (unit, part) in itertools.product(np.ndindex(base.shape),
                                                       _DIRECTIONS[base.dtype.kind]):
                shifted = []
                for step in (EPS, -EPS):
                    x = base.copy()
                    x[idx] += step * unit
                    shifted.append(evaluate(f, _with_leaf(args, i, j, x)))
                g[idx] += part * (shifted[0] - shifted[1]) / (2 * EPS)
            out.append(g)
        grads.append(rebuild(out))
    return tuple(grads)


def _along(args: tuple, argnums: tuple[int, ...], tangents: list, step: float) -> tuple:
    args = list(args)
    for i, t in zip(argnums, tangents):
        leaves, rebuild = tree_flatten(args[i])
        t_leaves, _ = tree_flatten(t)
        args[i] = rebuild([x + step * v if isinstance(x, float) else _wide(x) + step * v
                           for x, v in zip(leaves, t_leaves)])
    return tuple(args)


def check_direction(f: Callable, args: tuple, argnums: tuple[int, ...], grads: tuple,
                    rng: np.random.Generator) -> None:
    """<grad, v> against the central difference of f along a random tangent v."""
    tangents = [tree_map(lambda x: _tangent(x, rng), args[i]) for i in argnums]
    fd = (evaluate(f, _along(args, argnums, tangents, EPS))
          - evaluate(f, _along(args, argnums, tangents, -EPS))) / (2 * EPS)
    # a complex cotangent g pairs with a change v as Re(g * v)
    analytic = sum(float(np.real(np.sum(_wide(g) * v)))
                   for grad, t in zip(grads, tangents)
                   for g, v in zip(tree_flatten(grad)[0], tree_flatten(t)[0]))
    assert analytic == pytest.approx(fd, rel=RTOL, abs=ATOL * max(1.0, abs(fd))), (
        "directional derivative")


def _tangent(x: object, rng: np.random.Generator) -> object:
    if isinstance(x, float):
        return float(rng.normal())
    v = rng.normal(size=np.shape(x))
    return v + 1j * rng.normal(size=np.shape(x)) if np.iscomplexobj(x) else v


def assert_gradient(got: object, primal: object, want: object, path: str,
                    rtol: float = RTOL, atol: float = ATOL) -> None:
    """``got`` mirrors ``primal`` (structure, shapes, dtypes) and matches ``want``."""
    assert_same_structure(got, primal, path)
    got_leaves, _ = tree_flatten(got)
    for k, (g, p, w) in enumerate(zip(got_leaves, tree_flatten(primal)[0],
                                      tree_flatten(want)[0])):
        where = f"{path} leaf {k}"
        if isinstance(p, float):
            assert isinstance(g, (float, np.floating)) and np.ndim(g) == 0, (
                f"{where}: a Python float argument gets a float gradient, got {g!r}")
        else:
            assert isinstance(g, np.ndarray), f"{where}: an array argument gets an array, got {g!r}"
            assert np.shape(g) == np.shape(p), f"{where}: shape {np.shape(g)} != {np.shape(p)}"
            assert np.asarray(g).dtype == np.asarray(p).dtype, (
                f"{where}: dtype {np.asarray(g).dtype} != {np.asarray(p).dtype}")
        scale = max(1.0, float(np.max(np.abs(w), initial=0.0)))
        np.testing.assert_allclose(_wide(g), w, rtol=rtol,
                                   atol=atol * scale, err_msg=where)


def check_grad(f: Callable, args: tuple, argnums=0, has_aux: bool = False,
               grad_fn: Callable | None = None, rng: np.random.Generator | None = None):
    """Compare ``grad_fn`` (default ``jitaic.grad(f)``) with central differences of f."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if grad_fn is None:
        grad_fn = jitaic.grad(f, argnums=argnums, has_aux=has_aux)
    saved = copy_tree(args)
    got = grad_fn(*args)
    assert_same(args, saved, tol=0.0)  # arguments are not modified
    if has_aux:
        assert isinstance(got, tuple) and len(got) == 2, "has_aux: (grads, aux)"
        got, aux = got
        assert_same(aux, numpy_result(f, *args)[1], tol=100.0)
    if isinstance(argnums, int):
        got = (got,)
    else:
        assert isinstance(got, tuple) and len(got) == len(nums), (
            "tuple argnums give a tuple of gradients")
    scalar = (lambda *a: f(*a)[0]) if has_aux else f
    want = numerical_grad(scalar, args, nums)
    for i, g, w in zip(nums, got, want):
        assert_gradient(g, args[i], w, f"d/d(argument {i})")
    check_direction(scalar, args, nums, got, rng or np.random.default_rng(0))
    return got


# ---------------------------------------------------------------- 1. rule coverage

@pytest.mark.parametrize("name", sorted(OPS))
def test_op_has_vjp_rule_or_is_non_differentiable(name: str) -> None:
    op = OPS[name]
    rules = set(VJP_RULES) | set(REGION_VJP_RULES)
    assert (op in rules) != (op in NON_DIFFERENTIABLE), (
        f"{name} must have exactly one of a VJP rule or a NON_DIFFERENTIABLE entry")


def test_registries_hold_only_registered_ops() -> None:
    registered = set(OPS.values())
    assert set(VJP_RULES) | set(REGION_VJP_RULES) <= registered
    assert set(NON_DIFFERENTIABLE) <= registered
    assert not set(VJP_RULES) & set(NON_DIFFERENTIABLE)


# ---------------------------------------------------------------- 2. op VJPs


@dataclass(frozen=True)
class GradCase:
    """An array function, its argument specs (op_table syntax) and what to check."""

    name: str
    fn: Callable
    args: tuple[str, ...]
    domain: tuple[str, ...] | str = "real"
    argnums: tuple[int, ...] | None = None  # None: every float argument
    valid: Callable[..., bool] | None = None  # resample the inputs until true

    def domain_of(self, i: int) -> str:
        return self.domain if isinstance(self.domain, str) else self.domain[i]

    def float_argnums(self, args: tuple) -> tuple[int, ...]:
        if self.argnums is not None:
            return self.argnums
        return tuple(i for i, a in enumerate(args) if a.dtype.kind == "f")


def make_case_args(case: GradCase, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    for _ in range(100):
        args = tuple(make_array(rng, spec, case.domain_of(i)) for i, spec in enumerate(case.args))
        if case.valid is None or case.valid(*args):
            return args
    raise AssertionError(f"{case.name}: no valid inputs drawn")


def contract(out: object, cotangent: object) -> object:
    """sum over the leaves of sum(out * cotangent): the scalar whose gradient is a VJP."""
    total = 0.0
    out_leaves, ct_leaves = tree_flatten(out)[0], tree_flatten(cotangent)[0]
    assert len(out_leaves) == len(ct_leaves)
    for o, c in zip(out_leaves, ct_leaves):
        total = total + np.sum(o * c)
    return total


def vjp_objective(fn: Callable) -> Callable:
    def objective(cotangent, *args):
        return contract(fn(*args), cotangent)

    objective.__name__ = f"vjp_of_{getattr(fn, '__name__', 'fn')}"
    return objective


def random_cotangent(out: object, rng: np.random.Generator) -> object:
    return tree_map(lambda o: np.asarray(rng.normal(size=np.shape(o))), out)


def check_case(case: GradCase, rng: np.random.Generator) -> None:
    args = make_case_args(case, rng)
    out = numpy_result(case.fn, *args)
    objective = vjp_objective(case.fn)
    argnums = tuple(i + 1 for i in case.float_argnums(args))
    check_grad(objective, (random_cotangent(out, rng),) + args, argnums, rng=rng)


def _apart(*arrays: np.ndarray, gap: float = 1e-3) -> bool:
    """No two broadcast operands are within ``gap`` (no ties, no kinks under FD)."""
    a, *rest = np.broadcast_arrays(*arrays)
    return all(np.all(np.abs(a - b) > gap) for b in rest)


def _distinct(x: np.ndarray, gap: float = 1e-3) -> bool:
    return bool(np.all(np.diff(np.sort(x, axis=None)) > gap))


def _off_integers(x: np.ndarray, gap: float = 1e-3) -> bool:
    return bool(np.all(np.abs(x - np.rint(x)) > gap))


def _row(name: str):
    return next(r for r in ROWS if r.name == name)


def _unary_ufunc_op(row) -> ops.Op | None:
    """The unary ufunc op an op-table row is named after, if any."""
    op = OPS.get(row.name)
    return op if op is not None and op.ufunc is not None and op.ufunc.nin == 1 else None


# The op table's differentiable column picks the unary ufuncs with a gradient test.
UNARY = [r.name for r in ROWS if _unary_ufunc_op(r) and r.differentiable]
# Keep away from kinks and poles: |x| at 0, cbrt at 0, tan at ±pi/2.
UNARY_DOMAIN = {"absolute": "nonzero", "fabs": "nonzero", "cbrt": "nonzero", "tan": "unit"}


def test_differentiable_column_of_unary_rows_matches_the_vjp_rules() -> None:
    rows = [r for r in ROWS if _unary_ufunc_op(r)]
    assert len(UNARY) >= 25 and len(rows) > len(UNARY)
    for r in rows:
        assert r.differentiable == (_unary_ufunc_op(r) in VJP_RULES), r.name

BROADCASTS = [("f64[3,1]", "f64[1,4]"), ("f64[4]", "f64[2,3,4]"), ("f64[]", "f64[3,4]"),
              ("f64[3,4]", "f64[]")]


def _mod_ok(a: np.ndarray, b: np.ndarray) -> bool:
    q = a / b
    return bool(np.all(np.abs(q - np.floor(q) - 0.5) < 0.45))


BINARY = {  # op_table row -> (domains, validity)
    "subtract": ("real", None),
    "power": (("pos", "small"), None),
    "maximum": ("real", _apart),
    "minimum": ("real", _apart),
    "fmax": ("real", _apart),
    "fmin": ("real", _apart),
    "arctan2": ("real", lambda a, b: bool(np.all(a * a + b * b > 0.01))),
    "hypot": ("nonzero", None),
    "copysign": ("nonzero", None),
    "mod": (("real", "nonzero"), _mod_ok),
    "logaddexp": ("real", None),
    "logaddexp2": ("real", None),
}


def _unary_cases() -> list[GradCase]:
    return [GradCase(n, _row(n).fn, ("f64[3,4]",), UNARY_DOMAIN.get(n, _row(n).domain))
            for n in UNARY]


def _binary_cases() -> list[GradCase]:
    cases = []
    for name, domain, shapes in (("add", "real", BROADCASTS),
                                 ("multiply", "real", BROADCASTS[1::2]),
                                 ("true_divide", ("real", "nonzero"), BROADCASTS[::2])):
        cases += [GradCase(f"{name}[{a}&{b}]", _row(name).fn, (a, b), domain)
                  for a, b in shapes]
    for k, (name, (domain, valid)) in enumerate(BINARY.items()):
        a, b = BROADCASTS[k % len(BROADCASTS)]
        cases.append(GradCase(f"{name}[{a}&{b}]", _row(name).fn, (a, b), domain, valid=valid))
    # Python scalars on either side of an operator.
    cases += [GradCase("op_chain", _row("op_chain").fn, ("f64[3,4]", "f64[4]"),
                       ("real", "nonzero")),
              GradCase("op_rpow", _row("op_rpow").fn, ("f64[5]",), "small"),
              GradCase("op_pow_half", _row("op_pow_half").fn, ("f64[5]",), "pos"),
              GradCase("fmod_ldexp_frexp", _fmod_ldexp_frexp, ("f64[3,4]", "f64[4]"),
                       ("real", "nonzero"))]
    return cases


def _fmod_ldexp_frexp(a, b):
    return (np.fmod(a, b), np.ldexp(a, 3), np.ldexp(b, np.array([1, -2, 0, 4])),
            np.frexp(a)[0] * b, np.nextafter(a, b))


def _relu(x):
    return np.maximum(x, 0.0) + np.where(x > 0, x, 0.0) * 2.0


def _where_clip_cases() -> list[GradCase]:
    return [
        GradCase("where_broadcast", lambda c, a, b: np.where(c, a, b),
                 ("bool[3,1]", "f64[1,4]", "f64[]")),
        GradCase("relu_maximum_where", _relu, ("f64[3,4]",),
                 valid=lambda x: _apart(x, np.zeros(1))),
        GradCase("clip_scalars", _row("clip_scalars").fn, ("f64[3,4]",),
                 valid=lambda x: _apart(x, np.array([-0.5])) and _apart(x, np.array([0.5]))),
        GradCase("clip_arrays", _row("clip_arrays").fn, ("f64[3,4]", "f64[4]", "f64[3,1]"),
                 ("real", "small", "pos"), valid=lambda x, lo, hi: _apart(x, lo, hi)
                 and _apart(lo, hi)),
    ]


def _stop_gradient_cases() -> list[GradCase]:
    """Non-differentiable ops inside a differentiable function pass no gradient."""
    return [
        GradCase("times_floor", lambda x: x * np.floor(x) + np.ceil(x) * np.rint(x * 2),
                 ("f64[3,4]",), valid=lambda x: _off_integers(x) and _off_integers(x * 2)
                 and _off_integers(x * 2 - 0.5)),
        GradCase("times_sign_and_mask", lambda x: np.sign(x) * x ** 2 + x * (x > 0.5),
                 ("f64[3,4]",), valid=lambda x: _apart(x, np.zeros(1))
                 and _apart(x, np.array([0.5]))),
        GradCase("times_astype_int", lambda x: x * x.astype(np.int64) - (x // 1.5),
                 ("f64[3,4]",), valid=lambda x: _off_integers(x) and _off_integers(x / 1.5)),
        GradCase("times_argmax", lambda x: x * np.argmax(x, axis=1)[:, None] + np.argmin(x),
                 ("f64[3,4]",), valid=_distinct),
    ]


def _reduction_cases() -> list[GradCase]:
    def sum_(x):
        return (np.sum(x), np.sum(x, axis=1), x.sum(axis=(0, 2), keepdims=True),
                np.sum(x, axis=-1, keepdims=True), np.sum(x, keepdims=True))

    def prod(x):
        return np.prod(x), np.prod(x, axis=0), x.prod(axis=(1, 2), keepdims=True)

    def max_(x):
        return np.max(x), np.max(x, axis=1), np.amax(x, axis=(0, 2), keepdims=True)

    def min_(x):
        return np.min(x), x.min(axis=-1), np.min(x, axis=(0, 1), keepdims=True)

    def mean(x):
        return np.mean(x), x.mean(axis=(0, 2)), np.mean(x, axis=-1, keepdims=True)

    def var(x):
        return np.var(x), np.var(x, axis=0, ddof=1), x.var(axis=(1, 2), keepdims=True)

    def std(x):
        return np.std(x), np.std(x, axis=-1, ddof=1, keepdims=True), x.std(axis=(0, 1))

    def scans(x):
        return (np.cumsum(x), np.cumsum(x, axis=1), np.cumprod(x, axis=-1), np.diff(x, axis=0),
                np.maximum.accumulate(x, axis=1), np.minimum.accumulate(x, axis=-1))

    def sorted_(x):
        return np.sort(x, axis=1), np.median(x), np.median(x, axis=(0, 2), keepdims=True)

    x = ("f64[2,3,4]",)
    return [GradCase("sum", sum_, x), GradCase("prod", prod, ("f64[2,3,2]",), "nonzero"),
            GradCase("max", max_, x, valid=_distinct), GradCase("min", min_, x, valid=_distinct),
            GradCase("mean", mean, x), GradCase("var", var, x), GradCase("std", std, x),
            GradCase("scans", scans, x, "nonzero", valid=_distinct),
            GradCase("sort_median", sorted_, x, valid=_distinct)]


MATMUL_SHAPES = [("f64[4]", "f64[4]"), ("f64[3,4]", "f64[4]"), ("f64[4]", "f64[4,5]"),
                 ("f64[3,4]", "f64[4,5]"), ("f64[2,3,4]", "f64[2,4,5]"),
                 ("f64[2,3,4]", "f64[4,5]"), ("f64[4]", "f64[2,4,5]"),
                 ("f64[2,1,3,4]", "f64[5,4,2]")]


def _linalg_cases() -> list[GradCase]:
    cases = [GradCase(f"matmul[{a}@{b}]", lambda a, b: a @ b, (a, b)) for a, b in MATMUL_SHAPES]
    return cases + [
        GradCase("dot", lambda a, b, v: (np.dot(a, b), a.dot(v), np.dot(v, v)),
                 ("f64[3,4]", "f64[4,5]", "f64[4]")),
        GradCase("outer", lambda a, b, m: (np.outer(a, b), np.outer(m, a)),
                 ("f64[3]", "f64[4]", "f64[2,2]")),  # a 2-D operand is flattened
        # solve (vectors, matrices), inv, det, slogdet, cholesky (lower, upper)
        GradCase("lapack", _row("linalg").fn, ("f64[3,3]", "f64[3]"), "small"),
        GradCase("lapack_stack", _row("linalg").fn, ("f64[2,3,3]", "f64[3]"), "small"),
        # every np.fft transform: the fft op, the padding, slicing and casts around it
        GradCase("fft", _real_spectra, ("f64[3,4]",), "small"),
    ]


def _real_spectra(x):
    """The transforms of the op table's row, as real values (both parts)."""
    return tuple(np.real(s) * 0.5 + np.imag(s) for s in _row("cumprod_fft").fn(x)[2])


def _set_slice(x, z):
    y = x.copy()
    y[1:3] = z * 2
    return (y ** 2).sum()


def _set_reversed_broadcast(x, z):
    y = x.copy()
    y[:, ::-2] = z  # a (2,) value broadcast into a negative-step slice
    y[0] = 1.5  # a constant: row 0 of x gets no gradient
    return y * x


def _inplace_mixed(x, w):
    y = x.copy()
    y += w
    y *= x
    y /= 2.0
    y -= w ** 2
    y **= 2
    return y


def _shape_cases() -> list[GradCase]:
    return [
        GradCase("reshape", lambda x: (x.reshape(4, 3), x.reshape(-1), np.reshape(x, (2, -1, 2)),
                                       x.T.reshape(-1), x.ravel(), x.T.flatten()),
                 ("f64[3,4]",)),
        GradCase("reshape_0d", lambda x: x.reshape(()) * x, ("f64[1,1]",)),
        GradCase("transpose", lambda x: (x.T, np.transpose(x, (1, 2, 0)), x.transpose(0, -1, 1),
                                         np.swapaxes(x, 0, 2)), ("f64[2,3,4]",)),
        GradCase("expand_dims_squeeze",
                 lambda x: (np.expand_dims(x, 0), np.expand_dims(x, (0, 2)),
                            np.squeeze(x[None, :, None], axis=(0, 2)), x[:, None].squeeze()),
                 ("f64[3,4]",)),
        GradCase("broadcast_to",
                 lambda x, s, v: (np.broadcast_to(x, (2, 3, 4)), np.broadcast_to(s, (2, 3)),
                                  np.broadcast_to(v, (2, 3, 4)) * x),
                 ("f64[3,1]", "f64[]", "f64[4]")),
        GradCase("concatenate",
                 lambda a, b, c: (np.concatenate([a, b]), np.concatenate((a, c), axis=1),
                                  np.concatenate([c, a, c], axis=-1)),
                 ("f64[2,3]", "f64[4,3]", "f64[2,1]")),
        GradCase("stack", lambda a, b: (np.stack([a, b]), np.stack((a, b), axis=1),
                                        np.stack([a, b, a], axis=-1)),
                 ("f64[2,3]", "f64[2,3]")),
        GradCase("getitem_ints",
                 lambda x: (x[1], x[-1], x[1, -2], x[1, -2, 3] * x[-4, 0, -6]), ("f64[4,5,6]",)),
        GradCase("getitem_negative_steps", _row("index_negative_steps").fn, ("f64[4,5,6]",)),
        GradCase("getitem_none_ellipsis",
                 lambda x: (x[None], x[:, None, 1], x[..., None], x[..., 1], x[1, ..., None],
                            x[..., 1:, ::-1]), ("f64[4,5,6]",)),
        GradCase("getitem_out_of_range_and_empty", _row("index_out_of_range_slices").fn,
                 ("f64[4,5,6]",)),
        GradCase("getitem_overlapping_reads",
                 lambda x: (x[1:, 0] * x[:-1, -1], x[2] * x[-1], x[1:3] + x[2:]), ("f64[4,5]",)),
        GradCase("setitem_slice_from_other", _set_slice, ("f64[4,3]", "f64[2,3]")),
        GradCase("setitem_reversed_broadcast", _set_reversed_broadcast,
                 ("f64[3,4]", "f64[2]")),
        GradCase("setitem_and_augmented_slices", _row("inplace_slices").fn, ("f64[3,4]",)),
        GradCase("setitem_column", _row("inplace_column_from_input").fn, ("f64[3,4]",)),
        GradCase("inplace_add", _row("inplace_add").fn, ("f64[3,4]",)),
        GradCase("inplace_broadcast_add", _row("inplace_broadcast_add").fn,
                 ("f64[3,4]", "f64[4]")),
        GradCase("inplace_mixed", _inplace_mixed, ("f64[3,4]", "f64[4]"), "nonzero"),
    ]


CASES = (_unary_cases() + _binary_cases() + _where_clip_cases() + _stop_gradient_cases()
         + _reduction_cases() + _linalg_cases() + _shape_cases())
assert len({c.name for c in CASES}) == len(CASES), "duplicate case names"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_vjp_matches_finite_differences(case: GradCase, rng: np.random.Generator) -> None:
    check_case(case, rng)


def test_every_vjp_rule_is_exercised(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cases of this file run every VJP rule (traced on the reference backend:
    no numba compiles)."""
    used: set[str] = set()
    for op, rule in list(VJP_RULES.items()):
        def recording(node, *args, _rule=rule, _name=op.name):
            used.add(_name)
            return _rule(node, *args)

        monkeypatch.setitem(VJP_RULES, op, recording)
    rng = np.random.default_rng(0)
    with jitaic.config.override(backend="reference"):
        for case in CASES:
            args = make_case_args(case, rng)
            ct = random_cotangent(numpy_result(case.fn, *args), rng)
            argnums = tuple(i + 1 for i in case.float_argnums(args))
            jitaic.grad(vjp_objective(case.fn), argnums=argnums)(ct, *args)
        for fn, make in INDEX_CASES:
            jitaic.grad(fn)(*make(rng))
        jitaic.grad(_grad_of_run_time_sum)(rng.normal(size=6))  # broadcast_like's VJP
        jitaic.grad(through_real_part)(rng.normal(size=3))  # real, imag
        jitaic.grad(lambda z: np.abs(np.nan_to_num(z)).sum())(Z)  # make_complex
        jitaic.grad(lambda w, rng: (w * rng.normal(size=3)).sum())(  # generator_draw
            rng.normal(size=3), np.random.default_rng(0))
        with pytest.raises(UnsupportedError, match="gradient of np.linalg.eig is not"):
            jitaic.grad(lambda x: np.linalg.eigvals(x @ x.T).sum())(rng.normal(size=(3, 3)))
        with pytest.raises(UnsupportedError, match="gradient of np.pad, which NumPy"):
            jitaic.grad(lambda x: np.pad(x, 1, mode="mean").sum())(rng.normal(size=3))
        with pytest.raises(UnsupportedError, match="gradient of np.random.normal, which"):
            jitaic.grad(lambda x: np.random.normal(x).sum())(rng.normal(size=3))
    missing = {op.name for op in VJP_RULES} - used
    assert not missing, f"VJP rules no case exercises: {sorted(missing)}"


def test_slice_assignment_grads_wrt_copy_source_and_value(rng: np.random.Generator) -> None:
    """The example of docs/autodiff.md: grads of a local copy's slice assignment."""
    x, z = rng.normal(size=(4, 3)), rng.normal(size=(2, 3))
    gx, gz = check_grad(_set_slice, (x, z), argnums=(0, 1), rng=rng)
    want_x = 2 * x
    want_x[1:3] = 0.0
    np.testing.assert_allclose(gx, want_x, rtol=1e-12)
    np.testing.assert_allclose(gz, 8 * z, rtol=1e-12)


def test_astype_float32_to_float64(rng: np.random.Generator) -> None:
    """A float32 input cast up inside: gradient in float32, exactly the cast-down float64."""
    x = rng.normal(size=(3, 4)).astype(np.float32)
    w = rng.normal(size=(3, 4))
    g = jitaic.grad(lambda x, w: np.sum(x.astype(np.float64) ** 2 * w))(x, w)
    assert isinstance(g, np.ndarray) and g.dtype == np.float32 and g.shape == (3, 4)
    np.testing.assert_allclose(g, (2 * x.astype(np.float64) * w).astype(np.float32),
                               rtol=1e-6)


# ---------------------------------------------------------------- conventions at kinks


def test_max_ties_split_the_gradient() -> None:
    g = jitaic.grad(lambda x: np.max(x) * 2.0)(np.array([1.0, 3.0, 3.0, 2.0]))
    np.testing.assert_array_equal(g, [0.0, 1.0, 1.0, 0.0])


def test_maximum_tie_goes_to_first_operand() -> None:
    a = np.array([1.0, 2.0, 3.0])
    ga, gb = jitaic.grad(lambda a, b: np.sum(np.maximum(a, b)), argnums=(0, 1))(a, a.copy())
    np.testing.assert_array_equal(ga, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(gb, [0.0, 0.0, 0.0])


def test_abs_at_zero_has_zero_gradient() -> None:
    g = jitaic.grad(lambda x: np.sum(np.abs(x)))(np.array([-2.0, 0.0, 3.0]))
    np.testing.assert_array_equal(g, [-1.0, 0.0, 1.0])


# ---------------------------------------------------------------- complex values

Z = np.array([0.3 + 0.4j, -0.2 + 0.1j, 0.5 - 0.7j])


def test_complex_gradients_follow_jaxs_convention() -> None:
    """dL/dx - 1j * dL/dy: |z|**2 has 2 * conj(z) (JAX's value; its conjugate
    is the direction of steepest ascent, PyTorch's)."""
    got = jitaic.grad(lambda z: (np.abs(z) ** 2).sum())(np.array([3 + 4j, -1j]))
    np.testing.assert_allclose(got, [6 - 8j, 2j])


def test_complex64_arguments_get_complex64_gradients() -> None:
    got = jitaic.grad(lambda z: np.abs(z * z).sum())(Z.astype(np.complex64))
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got, 2 * np.abs(Z) * np.conj(Z) / np.abs(Z), rtol=1e-6)


def through_complex(x):
    return np.abs(x * (1 + 1j)).sum()


def through_real_part(x):
    return np.real(np.exp(1j * x)).sum() + np.imag(np.exp(2j * x)).sum()


def written_parts(z):
    w = z * 1.5
    w.imag[w.real > 0] *= 2.0
    w.real = np.sin(w.real)
    return np.abs(w * w).sum()


def through_parts(x, y):
    z = x + 1j * y
    return np.angle(z * z).sum() + np.abs(np.sign(z) + 0.5).sum()


@pytest.mark.parametrize("fn, args", [
    (through_complex, (np.array([1.0, -2.0]),)),
    (through_real_part, (np.array([1.0, 2.0]),)),
    (through_parts, (np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.7, -1.5]))),
    (written_parts, (Z,)),
], ids=["abs", "real and imag", "angle and sign", "writes through parts"])
def test_gradients_through_complex_intermediates(fn, args) -> None:
    check_grad(fn, args, tuple(range(len(args))))


def complex_escape(c):
    z = np.zeros_like(c)
    k = 0
    while np.abs(z).max() < 4.0 and k < 6:
        z = z * z + c
        k += 1
    return np.abs(z).sum()


def complex_branches(z):
    if z.real.sum() > 0:
        r = z * 2j
    else:
        r = np.exp(z)
    return np.abs(r).sum()


def complex_recurrence(z):
    w = z.copy()
    for i in range(1, w.shape[0]):
        w[i] = w[i - 1] * w[i] + 1j
    return (w * np.conj(w)).real.sum()


def complex_log_determinant(z):
    sign, logdet = np.linalg.slogdet(np.outer(z, z[::-1]) + np.diag(z))
    return np.real(sign * (0.3 - 0.7j)) + 0.5 * logdet


def test_complex_slogdet_differentiates_its_sign_and_logarithm() -> None:
    check_grad(complex_log_determinant, (Z,))


@pytest.mark.parametrize("fn", [complex_escape, complex_branches, complex_recurrence])
def test_complex_gradients_through_control_flow(fn) -> None:
    check_grad(fn, (Z,), grad_fn=jitaic.jit(jitaic.grad(fn), mode="ast"))


def test_holomorphic_functions_get_their_complex_derivative() -> None:
    got = jitaic.grad(lambda z: np.sum(np.sin(z) * z), holomorphic=True)(Z)
    np.testing.assert_allclose(got, np.cos(Z) * Z + np.sin(Z))


def test_vjp_of_complex_results_takes_complex_cotangents() -> None:
    ct = np.array([1 + 1j, 2.0, 3j])
    _, back = jitaic.vjp(lambda z: z * z * 1j, Z)
    np.testing.assert_allclose(back(ct)[0], ct * 2j * Z)  # holomorphic: ct * f'(z)
    _, back = jitaic.vjp(lambda x: x * (1 + 2j), np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(back(ct)[0], np.real(ct * (1 + 2j)))  # a real argument


@pytest.mark.parametrize("fn, options, message", [
    (lambda z: z.sum(), {}, "grad requires a real-valued output, got complex128: pass "
                            "holomorphic=True"),
    (lambda z: np.abs(z).sum(), {"holomorphic": True},
     "grad with holomorphic=True requires a complex output, got float64"),
])
def test_complex_outputs_need_holomorphic(fn, options, message) -> None:
    with pytest.raises(TypeError, match=re.escape(message)):
        jitaic.grad(fn, **options)(Z)


def test_holomorphic_needs_complex_arguments() -> None:
    with pytest.raises(TypeError, match="holomorphic=True requires complex inputs, but "
                                        "argument 0 has a leaf of dtype float64"):
        jitaic.grad(lambda x: x.sum() * 1j, holomorphic=True)(np.ones(2))


def complex_maximum(z):
    return np.abs(np.maximum(z, 1j)).sum()


def complex_eigenvalues(z):
    return np.linalg.eigvalsh(np.outer(z, np.conj(z))).sum()


@pytest.mark.parametrize("fn, op", [(complex_maximum, "maximum"), (complex_eigenvalues, "eigh")])
def test_complex_gradients_without_a_rule_are_refused_at_the_users_line(fn, op) -> None:
    with pytest.raises(UnsupportedError, match=rf"gradients through complex values of {op} "
                                               rf"are not supported yet at test_autodiff\.py:\d+"):
        jitaic.grad(fn)(Z)


# ---------------------------------------------------------------- traced integer indices


def _gather_argmax(x):
    return x[np.argmax(x)] * 3.0 + np.sum(x)


def _index_by_array(x, i):
    y = x.copy()
    y[i] = 0.0
    return np.sum(y ** 2) + np.sum(x[i] ** 3)


def _cross_entropy(logits, labels):
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -logp[np.arange(logits.shape[0]), labels].mean()


def _gather_repeated(x):
    # repeated rows read one element twice: its gradient adds up
    return np.sum(x[[2, 0, 2]] ** 2) + np.sum(x[:, [1, 1, -1]] * x[:, [0, 2, 2]])


def _scatter_set_and_add(x, v):
    y = x * 1.0
    y[[0, 2]] = v  # overwritten rows of x get no gradient
    np.add.at(y, [1, 1, 3], v * 2.0)  # repeated row 1 adds twice
    return np.sum(np.sin(y))


def _masked(x, w):
    # a traced mask: x[m] has a run-time length; x[m] = v fills its rows in order
    y = x * w
    m = y > 0.2
    y[m] = np.sin(y[m]) * w[m]
    return np.sum(y[y < 0.5] ** 2) + y[m].mean()


def _up_to_argmax(x):
    k = np.argmax(x)  # x[:k + 1]: a run-time length (sum's VJP: broadcast_like)
    return np.sum(x[:k + 1] ** 2) * np.mean(x[k:]) + np.sum(x[1:k + 1, None] * x[:k, None])


def _grad_of_run_time_sum(x):
    # second order through a sum over x[:k + 1]: differentiates broadcast_like
    return np.sum(jitaic.grad(lambda y: np.sum(y[:np.argmax(y) + 1] ** 3))(x) ** 2)


INDEX_CASES = [
    (_gather_argmax, lambda r: (r.normal(size=5),)),
    (_masked, lambda r: (r.normal(size=(4, 3)), r.normal(size=(4, 3)))),
    (_up_to_argmax, lambda r: (r.normal(size=6),)),
    (_grad_of_run_time_sum, lambda r: (r.normal(size=6),)),
    (_index_by_array, lambda r: (r.normal(size=(4, 3)), np.array(2))),
    (_cross_entropy, lambda r: (r.normal(size=(6, 4)), np.array([0, 3, 1, 1, 2, 0]))),
    (_gather_repeated, lambda r: (r.normal(size=(4, 3)),)),
    (_scatter_set_and_add, lambda r: (r.normal(size=(4, 3)), r.normal(size=3))),
]


@pytest.mark.parametrize("fn, make", INDEX_CASES,
                         ids=["gather_at_argmax", "mask_read_and_write",
                              "run_time_slices_at_argmax",
                              "second_order_run_time_sum",
                              "get_and_set_at_0d_int_array",
                              "cross_entropy_labels", "gather_repeated",
                              "scatter_set_and_add_at"])
def test_grad_through_integer_indexing(fn, make, rng: np.random.Generator) -> None:
    args = make(rng)
    floats = tuple(i for i, a in enumerate(args) if np.asarray(a).dtype.kind == "f")
    check_grad(fn, args, argnums=floats, rng=rng)


# ---------------------------------------------------------------- 3. second order

SECOND_ORDER = {
    "sin": (np.sin, lambda x: -np.sin(x)),
    "exp": (np.exp, np.exp),
    "tanh": (np.tanh, lambda x: -2.0 * np.tanh(x) * (1.0 - np.tanh(x) ** 2)),
    "log": (np.log, lambda x: -1.0 / x ** 2),
    "cube": (lambda x: x ** 3, lambda x: 6.0 * x),
    "sqrt": (np.sqrt, lambda x: -0.25 * x ** -1.5),
}
_SECOND: dict[tuple[str, str], Callable] = {}


@pytest.mark.parametrize("kind", ["python_float", "0d_array"])
@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_derivative_of_scalar_function(name: str, kind: str) -> None:
    f, d2 = SECOND_ORDER[name]
    hessian = jitaic.grad(jitaic.grad(f))
    for x in (0.3, 1.7, 2.9):
        arg = x if kind == "python_float" else np.array(x)
        got = hessian(arg)
        assert np.shape(got) == () and np.asarray(got).dtype == np.float64
        assert isinstance(got, (float, np.floating) if kind == "python_float" else np.ndarray)
        assert float(got) == pytest.approx(d2(x), rel=1e-12, abs=1e-14), f"x={x}"
    assert hessian.cache_info().misses == 1


def test_third_derivative() -> None:
    g3 = jitaic.grad(jitaic.grad(jitaic.grad(np.sin)))
    assert float(g3(0.4)) == pytest.approx(-np.cos(0.4), rel=1e-12)


def test_hessian_vector_product(rng: np.random.Generator) -> None:
    """grad of <grad f, v> against central differences of grad f along v."""
    a = rng.normal(size=(4, 3))

    def f(x):
        return np.sum(np.tanh(a @ x) ** 2) + np.sum(x ** 4) / 4.0 + np.prod(x)

    g = jitaic.grad(f)
    hvp = jitaic.grad(lambda x, v: np.sum(g(x) * v))
    x, v = rng.normal(size=3), rng.normal(size=3)
    eps = 1e-5
    want = (g(x + eps * v) - g(x - eps * v)) / (2 * eps)
    np.testing.assert_allclose(hvp(x, v), want, rtol=1e-6, atol=1e-8)
    assert g.cache_info().misses == 1


# ---------------------------------------------------------------- 4. program corpus


@pytest.mark.parametrize("prog", GRAD_PROGRAMS, ids=[p.name for p in GRAD_PROGRAMS])
def test_program_gradient(prog: GradProgram) -> None:
    rng = np.random.default_rng(seed_of("grad_programs", prog.name))
    args = prog.make_args(rng)
    check_grad(prog.fn, args, prog.argnums, prog.has_aux, rng=rng)


def test_corpus_covers_the_brief() -> None:
    names = {p.name for p in GRAD_PROGRAMS}
    assert len(names) == len(GRAD_PROGRAMS) >= 15
    assert any(p.has_aux for p in GRAD_PROGRAMS)
    assert any(p.argnums == (0, 2) for p in GRAD_PROGRAMS)


def test_gradient_wrt_python_float_learning_rate() -> None:
    """d/dlr of the loss after one SGD step, against the closed form."""
    rng = np.random.default_rng(seed_of("lr"))
    prog = next(p for p in GRAD_PROGRAMS if p.name == "loss_after_sgd_step")
    w, lr, x, y = prog.make_args(rng)
    _, g_lr = jitaic.grad(prog.fn, argnums=(0, 1))(w, lr, x, y)
    n = x.shape[0]
    g = 2.0 * x.T @ (x @ w - y) / n
    w_new = w - lr * g
    want = float(2.0 * (x @ w_new - y) @ (x @ -g) / n)
    assert isinstance(g_lr, (float, np.floating))
    assert float(g_lr) == pytest.approx(want, rel=1e-10)


def test_python_float_gets_float_gradient() -> None:
    def f(w, a, b, c):
        # a meets only scalars; b and c are broadcast against an array.
        return np.sum(w) * a * a + np.sum(w * b) + np.sum(w + c) * 0.5

    grads = jitaic.grad(f, argnums=(1, 2, 3))(np.ones(3), 1.0, 2.0, 3.0)
    for g, want in zip(grads, (6.0, 3.0, 1.5)):
        assert isinstance(g, (float, np.floating)) and np.ndim(g) == 0, f"got {g!r}"
        assert float(g) == want


# ---------------------------------------------------------------- 5. composition


def _loss(x, w):
    return np.sum(np.tanh(x @ w) ** 2) * 0.5 + np.sum(w ** 2) * 0.1


def _loss_args(rng, n=5, dtype=np.float64):
    return rng.normal(size=(n, 3)).astype(dtype), rng.normal(size=(3, 2)).astype(dtype)


def test_jit_of_grad(rng: np.random.Generator) -> None:
    f = jitaic.jit(jitaic.grad(_loss, argnums=1))
    args = _loss_args(rng)
    check_grad(_loss, args, argnums=1, grad_fn=f, rng=rng)
    f(*_loss_args(rng))
    assert f.cache_info().misses == 1


def test_jit_of_grad_inside_a_bigger_function(rng: np.random.Generator) -> None:
    """A gradient step written with grad, compiled as a whole."""
    step = jitaic.jit(lambda x, w, lr: w - lr * jitaic.grad(_loss, argnums=1)(x, w))
    x, w = _loss_args(rng)
    want = w - 0.3 * numerical_grad(_loss, (x, w), (1,))[0]
    np.testing.assert_allclose(step(x, w, 0.3), want, rtol=1e-6, atol=1e-8)


def test_grad_of_jit(rng: np.random.Generator) -> None:
    jitted = jitaic.jit(_loss)
    g = jitaic.grad(jitted, argnums=(0, 1))
    check_grad(_loss, _loss_args(rng), argnums=(0, 1), grad_fn=g, rng=rng)


def test_value_and_grad_value_equals_function_value(rng: np.random.Generator) -> None:
    vg = jitaic.value_and_grad(_loss, argnums=(0, 1))
    args = _loss_args(rng)
    value, grads = vg(*args)
    assert np.shape(value) == () and np.asarray(value).dtype == np.float64
    assert float(value) == pytest.approx(_loss(*args), rel=1e-12)
    want = numerical_grad(_loss, args, (0, 1))
    for i, (g, w) in enumerate(zip(grads, want)):
        assert_gradient(g, args[i], w, f"d/d(argument {i})")


def test_value_and_grad_with_aux(rng: np.random.Generator) -> None:
    def f(w, x):
        pred = x @ w
        return np.mean(pred ** 2), {"pred": pred, "norm": np.sqrt(np.sum(w * w))}

    x, w = _loss_args(rng)
    (value, aux), g = jitaic.value_and_grad(f, has_aux=True)(w, x)
    want_value, want_aux = f(w, x)
    assert float(value) == pytest.approx(want_value, rel=1e-12)
    assert_same(aux, want_aux, tol=100.0)
    assert_gradient(g, w, numerical_grad(lambda w, x: f(w, x)[0], (w, x), (0,))[0], "dw")


def test_grad_compiles_once_per_shape(rng: np.random.Generator) -> None:
    g = jitaic.grad(_loss, argnums=1)
    first = g(*_loss_args(rng))
    for _ in range(3):
        g(*_loss_args(rng))
    info = g.cache_info()
    assert (info.misses, info.entries) == (1, 1)
    assert info.hits >= 3
    assert first.shape == (3, 2)
    g(*_loss_args(rng, n=7))  # a new shape of x: one new specialisation
    g(*_loss_args(rng, n=7))
    g(*_loss_args(rng))
    info = g.cache_info()
    assert (info.misses, info.entries) == (2, 2)


def test_float32_inputs_give_float32_gradients(rng: np.random.Generator) -> None:
    def f(params, x, lr):
        h = np.tanh(x @ params["w"] + params["b"])
        return np.sum(h ** 2) * 0.5 + lr * np.sum(params["w"] ** 2)

    g = jitaic.grad(f, argnums=(0, 2))
    params = {"w": rng.normal(size=(3, 2)), "b": rng.normal(size=2)}
    x = rng.normal(size=(4, 3))
    want, want_lr = g(params, x, 0.1)
    got, got_lr = g(tree_map(lambda a: a.astype(np.float32), params), x.astype(np.float32), 0.1)
    for k in ("w", "b"):
        assert got[k].dtype == np.float32 and want[k].dtype == np.float64
        np.testing.assert_allclose(got[k], want[k], rtol=1e-4, atol=1e-5)
    assert float(got_lr) == pytest.approx(float(want_lr), rel=1e-5)
    assert g.cache_info().misses == 2


def test_vjp_of_pytree_output(rng: np.random.Generator) -> None:
    def f(x, w):
        return np.tanh(x @ w), {"sq": np.sum(x ** 2), "w": w * 2.0}

    x, w = _loss_args(rng)
    out, vjp_fn = jitaic.vjp(f, x, w)
    assert_same(out, f(x, w), tol=100.0)
    for _ in range(2):  # a second cotangent reuses the compiled backward pass
        ct = random_cotangent(out, rng)
        gx, gw = vjp_fn(ct)
        want = numerical_grad(lambda x, w, ct=ct: contract(f(x, w), ct), (x, w), (0, 1))
        assert_gradient(gx, x, want[0], "dx")
        assert_gradient(gw, w, want[1], "dw")


def test_vjp_single_primal(rng: np.random.Generator) -> None:
    x = rng.uniform(0.5, 2.0, size=(2, 3))
    out, vjp_fn = jitaic.vjp(lambda x: np.log(x) * x, x)
    np.testing.assert_allclose(out, np.log(x) * x, rtol=1e-12)
    ct = rng.normal(size=(2, 3))
    (gx,) = vjp_fn(ct)
    np.testing.assert_allclose(gx, ct * (np.log(x) + 1.0), rtol=1e-12)


def test_same_array_passed_twice(rng: np.random.Generator) -> None:
    a = rng.normal(size=4)
    ga, gb = jitaic.grad(lambda x, y: np.sum(x * y ** 2), argnums=(0, 1))(a, a)
    np.testing.assert_allclose(ga, a ** 2, rtol=1e-12)
    np.testing.assert_allclose(gb, 2 * a * a, rtol=1e-12)


def test_unused_argument_gets_zeros(rng: np.random.Generator) -> None:
    x, y = rng.normal(size=(2, 3)), rng.normal(size=4).astype(np.float32)
    gx, gy = jitaic.grad(lambda x, y, s: np.sum(x ** 2), argnums=(0, 1, 2))(x, y, 1.5)[:2]
    np.testing.assert_allclose(gx, 2 * x, rtol=1e-12)
    assert gy.dtype == np.float32 and gy.shape == (4,) and not gy.any()


def test_keyword_arguments_pass_through(rng: np.random.Generator) -> None:
    x = rng.normal(size=3)
    g = jitaic.grad(lambda x, scale=1.0: np.sum(x * x) * scale)(x, scale=2.0)
    np.testing.assert_allclose(g, 4 * x, rtol=1e-12)


# ---------------------------------------------------------------- 6. errors


def _sum_sq(x):
    return np.sum(x * x)


@pytest.mark.parametrize("bad", [np.arange(3), np.array([True, False]), 3,
                                 {"w": np.ones(2), "n": np.arange(2)}],
                         ids=["int_array", "bool_array", "python_int", "int_leaf_in_dict"])
def test_integer_argument_is_rejected(bad) -> None:
    f = (lambda p: np.sum(p["w"] * p["n"])) if isinstance(bad, dict) else _sum_sq
    with pytest.raises(TypeError, match="dtype"):
        jitaic.grad(f)(bad)


def test_integer_argument_outside_argnums_is_fine() -> None:
    g = jitaic.grad(lambda x, n: np.sum(x * n))(np.ones(3), np.arange(3))
    np.testing.assert_array_equal(g, [0.0, 1.0, 2.0])


@pytest.mark.parametrize("transform", [jitaic.grad, jitaic.value_and_grad])
def test_non_scalar_output_is_rejected(transform) -> None:
    with pytest.raises(TypeError, match="scalar"):
        transform(lambda x: np.sin(x))(np.ones(3))


def test_integer_output_is_rejected() -> None:
    with pytest.raises(TypeError, match="scalar"):
        jitaic.grad(lambda x: np.sum(x > 0))(np.ones(3))


@pytest.mark.parametrize("argnums", [1, (0, 2)])
def test_argnums_out_of_range(argnums) -> None:
    with pytest.raises((TypeError, ValueError, IndexError), match="argnums"):
        jitaic.grad(_sum_sq, argnums=argnums)(np.ones(3))


# ---------------------------------------------------------------- zeros, 0-d results, one element

@pytest.mark.parametrize("fn", [
    lambda x: x.reshape(()),
    lambda x: x.squeeze(),
    lambda x: np.tensordot(x, np.array([4.0]), 1),
    lambda x: x.T[0],
], ids=["reshape to 0-d", "squeeze", "tensordot full contraction", "view of a view"])
def test_gradient_of_a_returned_view_reaches_the_input(fn) -> None:
    # views emit their nodes when first read; a view read only as the
    # function's result was recorded after the gradient's walk had begun
    check_grad(fn, (np.array([2.0]),))


def test_vjp_of_a_returned_transposed_view() -> None:
    x = np.arange(6.0).reshape(2, 3)
    _, backward = jitaic.vjp(lambda x: x.T[0], x)
    assert_same(backward(np.array([1.0, 2.0]))[0], np.array([[1.0, 0, 0], [2.0, 0, 0]]))


@pytest.mark.parametrize("x", [np.float64(3.5), np.array([2.0]), np.array([[1.0], [-3.0]])],
                         ids=["scalar", "one element", "groups of one"])
def test_std_and_var_of_one_element_have_zero_gradient(x) -> None:
    for reduce in (np.std, np.var):
        f = lambda x, reduce=reduce: np.sum(reduce(x, axis=-1) if np.ndim(x) else reduce(x))
        assert_same(jitaic.grad(f)(x), x * 0.0)
    special = np.array([[np.inf], [np.nan], [-0.0]])
    with np.errstate(invalid="ignore"):  # inf - inf in NumPy's own std
        expected = np.std(special, axis=1)
    assert_same(jitaic.jit(lambda x: np.std(x, axis=1))(special), expected)


PRODUCTS_WITH_ZEROS = [
    np.array([2.0, 0.0, 3.0]), np.array([2.0, 0.0, 0.0]), np.array([0.0, 0.0, 0.0]),
    np.array([[1.5, 0.0, -2.0, 0.5], [0.0, 3.0, 0.0, 1.0], [0.7, 1.1, -0.4, 0.0]]),
]


@pytest.mark.parametrize("x", PRODUCTS_WITH_ZEROS, ids=lambda x: str(x.tolist()))
def test_prod_and_cumprod_gradients_at_zeros(x) -> None:
    w = np.linspace(0.5, 1.5, x.shape[-1])  # distinct weights per position
    check_grad(lambda x: np.sum(np.prod(x, axis=-1) * 2.0), (x,))
    check_grad(lambda x: np.sum(np.prod(x, axis=0)), (x,))
    check_grad(lambda x: np.sum(np.cumprod(x, axis=-1) * w), (x,))
    check_grad(lambda x: np.sum(np.cumprod(x, axis=0) ** 2), (x,))
    assert_same(jitaic.grad(lambda x: np.cumprod(x).sum())(np.array([2.0, 0.0, 3.0])),
                np.array([1.0, 8.0, 0.0]))


def _overwritten_sqrt(x):
    y = np.sqrt(x)
    y[x < 0] = 0.0  # NaN overwritten: no gradient flows into it
    return np.sum(y)


def _pair_potential(x):
    d = x[:, None] - x[None, :]
    r = np.sqrt(d ** 2 + 0.0)  # 0 on the diagonal, where sqrt' is inf
    r[r > 0] = 1.0 / r[r > 0]
    return np.sum(r * np.arange(1.0, 4.0))


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
@pytest.mark.parametrize("fn", [
    lambda x: np.sum(np.where(x > 0, np.sqrt(x), 0.0)),
    lambda x: np.sum(np.where(x > 0, np.log(x), 1.0)),
    lambda x: np.sum(np.where(np.abs(x) < 1, np.arcsin(x), 0.0)),
    lambda x: np.sum(np.where(x > 0, x ** 0.5, x)),
    lambda x: np.sum(np.where(x > 0, 1.0 / np.sqrt(x), 0.0)),
    _overwritten_sqrt,
    _pair_potential,
], ids=["where sqrt", "where log", "where arcsin", "where power", "where 1/sqrt",
        "overwritten sqrt", "n-body pair potential"])
def test_unselected_singular_values_pass_no_nan(fn) -> None:
    # sqrt, log, arcsin, power and division of values np.where does not select
    # or a store overwrites: 0 * inf or 0 * NaN was NaN; the gradient is the
    # finite difference of the function as written
    x = np.array([-2.0, -0.5, 0.7, 3.0])[: 3 if fn is _pair_potential else 4]
    got = check_grad(fn, (x,))
    assert np.all(np.isfinite(got))



# Differentiable rows whose finite differences are too coarse to check them.
FD_TOO_COARSE = {
    "astype_f64_f32": "a float32 round trip: the function has float32 precision",
    "method_chain": "ends in astype(np.float32)",
}


def _fd_rows():
    """Every differentiable row with a case of float64 and complex128
    arguments (drawn here without NaN or inf): the table's ``differentiable``
    column picks the gradients checked here."""
    for row in ROWS:
        case = next((c for c in row.cases
                     if all(s.startswith(("f64", "c128")) for s in c.args)), None)
        if row.differentiable and case is not None and row.name not in FD_TOO_COARSE:
            yield pytest.param(row, case, id=row.name)


@pytest.mark.parametrize("row, case", _fd_rows())
def test_every_differentiable_row_matches_finite_differences(row, case) -> None:
    rng = np.random.default_rng(seed_of("fd", row.name))
    args = tuple(make_array(rng, spec, row.domain_of(i)) for i, spec in enumerate(case.args))
    if any(a.size == 0 for a in args):
        pytest.skip("an empty argument: nothing to differentiate")
    try:
        jitaic.grad(_summed(row.fn), argnums=tuple(range(len(args))))(*args)
    except jitaic.UnsupportedError as exc:  # a gradient jitaic cannot take yet
        pytest.skip(str(exc))
    check_grad(_summed(row.fn), args, tuple(range(len(args))), rng=rng)


def test_the_coarse_exclusions_are_real_differentiable_rows() -> None:
    names = {r.name: r for r in ROWS}
    assert all(names[n].differentiable for n in FD_TOO_COARSE)


# ---------------------------------------------------------------- source locations

def _user_files_of_nodes(graph) -> set[str]:
    files = set()
    for node in graph.walk():
        assert node.loc is not None, f"{node.op.name} has no source location"
        files.add(os.path.basename(node.loc.filename))
    return files


def _summed(fn: Callable) -> Callable:
    """A real loss of every float or complex result: complex ones weighted by
    a complex number, so that a conjugation missing from a rule shows."""
    def loss(*args):
        total = 0.0
        for leaf in tree_flatten(fn(*args))[0]:
            kind = np.asarray(leaf).dtype.kind
            if kind == "f":
                total = total + np.sum(leaf)
            elif kind == "c":
                total = total + np.sum(np.real(leaf * (0.6 - 0.8j)))
        return total

    return loss


def _location_rows():
    for row in ROWS:
        case = next((c for c in row.cases if any(s.startswith("f") for s in c.args)), None)
        if row.differentiable and case is not None:
            yield pytest.param(row, case, id=row.name)


@pytest.mark.parametrize("row, case", _location_rows())
def test_gradient_nodes_carry_the_line_of_the_forward_op(row, case) -> None:
    """Every node of a gradient graph points at user code: the op table's row
    (the forward op it differentiates) or the loss summing its outputs here."""
    args = make_args(row, case, np.random.default_rng(seed_of(row.name)))
    argnums = tuple(i for i, a in enumerate(args) if np.asarray(a).dtype.kind == "f")
    g = jitaic.jit(jitaic.grad(_summed(row.fn), argnums=argnums))
    with jitaic.config.override(backend="reference"):
        try:
            graph = g.lower(*args).ir
        except jitaic.UnsupportedError as exc:  # a gradient jitaic cannot take yet
            pytest.skip(str(exc))
    assert _user_files_of_nodes(graph) <= {"op_table.py", os.path.basename(__file__)}


@pytest.mark.parametrize("prog", GRAD_PROGRAMS, ids=[p.name for p in GRAD_PROGRAMS])
def test_gradient_nodes_of_the_corpus_point_at_its_lines(prog: GradProgram) -> None:
    args = prog.make_args(np.random.default_rng(seed_of(prog.name)))
    g = jitaic.jit(jitaic.grad(prog.fn, argnums=prog.argnums, has_aux=prog.has_aux))
    with jitaic.config.override(backend="reference"):
        graph = g.lower(*args).ir
    assert _user_files_of_nodes(graph) <= {"grad_programs.py", os.path.basename(__file__)}


def _assign_through(x, idx):
    y = x.copy()
    y[idx] = x[idx] * 3.0  # idx repeats 1: the last write wins
    y[np.array([3, 0, -1])] += 1.0  # 3 and -1: one element, written twice
    return (y * y).sum()


def test_assignments_with_repeated_indices_pass_only_the_last_write_back() -> None:
    """x[idx] = v keeps the last write of a repeated index: the values written
    before it get no gradient (they gave all of it: a wrong gradient). The
    op-table row gather_run_time_length covers index arrays of run-time length."""
    x = np.linspace(0.5, 2.0, 4)
    check_grad(_assign_through, (x, np.array([1, 2, 1])), argnums=0)


def test_a_failing_vjp_rule_is_reported_as_jitaics_bug_when_traced(monkeypatch):
    """An error inside the backward pass is jitaic's, not a NumPy error of the
    user's code: it must not become a check that raises when the code runs."""
    def broken(*args, **kwargs):
        raise TypeError("a broken rule")

    monkeypatch.setitem(VJP_RULES, ops.sin, broken)
    loss = jitaic.grad(lambda x: np.sin(x[0]) + x[1])
    with pytest.raises(CompileError, match=r"internal error while differentiating .*"
                                                  r"TypeError: a broken rule"):
        jitaic.jit(loss)(np.array([1.0, 2.0]))


def _masked_by_emptiness(a):
    v = np.var(np.cos(a), ddof=1, keepdims=True)  # NaN: one element, ddof=1
    v *= a[0]
    return np.sin(a).sum() + (a[2:0] * v ** 2).sum()  # v meets no element


def test_an_operand_that_meets_no_element_passes_no_nan():
    """Its cotangent is a sum over nothing: zero whatever the NaN beside it."""
    a = np.array([0.3])
    with np.errstate(all="ignore"):
        got = jitaic.jit(jitaic.grad(_masked_by_emptiness))(a)
    np.testing.assert_allclose(got, np.cos(a))


def _overwritten(x, a, k):
    y = x * 1.0
    y[k[0]] = np.sinh(a)  # overwritten below: no gradient through it
    y[k[0]] = 2.0
    y[1:3] = np.sin(a)
    y[1:3] = a
    return (y * y).sum()


def test_a_value_a_later_store_overwrites_gets_no_cotangent_computation():
    """The cotangent of the first store's value is the read of an element the
    second store's backward pass has just cleared: known zero while
    differentiating, so it is dropped, not pushed through sinh and sin (no
    cosh and no cos in the gradient)."""
    x, a, k = np.arange(5.0), np.float64(0.7), np.array([3])
    g = jitaic.jit(jitaic.grad(_overwritten, argnums=(0, 1)))
    gx, ga = g(x, a, k)
    np.testing.assert_allclose(gx, [0.0, 0.0, 0.0, 0.0, 8.0])
    assert ga == pytest.approx(2 * 2 * a)
    ir = g.specializations()[0].ir
    assert not re.search(r"= (cosh|cos) ", ir)
