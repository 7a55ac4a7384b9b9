"""Which differences rounding alone can make: NumPy's program with inexact results nudged.

jitaic's transcendental functions and ``**`` are within a few ulp of NumPy's,
and its float reductions may add in another order. Where a program feeds such
a result into something discontinuous (``//``, a comparison, a cast to int, an
``if``) or amplifies it (a cancelling subtraction), NumPy's own result moves
by more than any tolerance. So the oracle reruns the NumPy program with every
inexact result moved by a few ulp (reductions: by their rounding bound),
up in one run, down in another, mixed in two more: a difference from jitaic
at a position where one of these runs also differs is rounding, not a bug.
Exactly rounded operations (+ - * / sqrt, casts, comparisons) are not moved.
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
from collections.abc import Callable

import numpy as np

ULPS = 4
TRANSCENDENTAL = {"exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sin", "cos",
                  "tan", "tanh", "sinh", "cosh", "arctan", "arcsin", "arccos", "arctan2",
                  "arcsinh", "arccosh", "arctanh", "power", "float_power", "hypot", "cbrt",
                  "logaddexp", "sinc"}
# reductions that may reassociate: how far the rounding may move their result
REDUCTIONS = {"sum": "sum", "mean": "sum", "cumsum": "sum", "nansum": "sum",
              "nanmean": "sum", "nancumsum": "sum", "average": "sum", "trapezoid": "sum",
              "fft": "sum", "ifft": "sum", "rfft": "sum", "irfft": "sum", "norm": "sum",
              "var": "var", "nanvar": "var", "std": "std", "prod": "prod", "cumprod": "prod"}
# sums of products of two operands: their rounding bound is a sum's over the products
PRODUCTS = {"dot", "matmul", "inner", "tensordot", "convolve", "correlate", "polyval",
            "cross", "trace"}


def nudge(directions: np.ndarray, value, site: int, how: str = "ulp", operand=None):
    """``value`` (a float result) moved by its rounding bound in this site's direction."""
    v = np.asarray(value)
    if v.dtype.kind != "f":
        return value
    finite = np.isfinite(v)
    if how in ("ulp", "prod"):
        n = 1 if how == "ulp" else max(np.size(operand), 1)
        delta = ULPS * n * np.spacing(np.abs(np.where(finite, v, 0)))
    else:
        x = np.abs(np.asarray(operand)).astype(np.float64)
        top = float(np.max(x, where=np.isfinite(x), initial=0.0))
        bound = ULPS * max(x.size, 1) * np.finfo(v.dtype).eps
        delta = {"sum": bound * top, "var": bound * top * top,
                 "std": np.sqrt(bound) * top}[how]
    moved = np.where(finite, v + directions[site] * delta, v).astype(v.dtype)
    return moved if isinstance(value, np.ndarray) else moved[()]


class _Wrap(ast.NodeTransformer):
    """``np.exp(x)`` -> ``_nudge(np.exp(x), 0, "ulp")``;
    ``x.sum()`` -> ``_nudge(x.sum(), 1, "sum", x)``."""

    def __init__(self) -> None:
        self.sites = 0

    def _wrap(self, node: ast.expr, how: str = "ulp", operand: ast.expr | None = None):
        args = [node, ast.Constant(self.sites), ast.Constant(how)]
        self.sites += 1
        return ast.Call(ast.Name("_nudge", ast.Load()), args + ([operand] if operand else []),
                        [])

    def visit_BinOp(self, node: ast.BinOp):
        self.generic_visit(node)
        return self._wrap(node) if isinstance(node.op, ast.Pow) else node

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if not isinstance(node.func, ast.Attribute):
            return node
        name = node.func.attr
        module = node.func.value  # np, or np.fft and np.linalg
        module = module.value if isinstance(module, ast.Attribute) else module
        is_np = isinstance(module, ast.Name) and module.id == "np"
        if is_np and name in TRANSCENDENTAL:
            return self._wrap(node)
        if is_np and name in PRODUCTS:
            pair = node.args[:2] if len(node.args) > 1 else node.args * 2
            return self._wrap(node, "sum", _outer_product(*pair))
        if name in REDUCTIONS:
            operand = node.args[0] if is_np and node.args else node.func.value
            return self._wrap(node, REDUCTIONS[name], operand)
        return node


def _outer_product(a: ast.expr, b: ast.expr) -> ast.expr:
    """``np.multiply.outer(np.ravel(a), np.ravel(b))``: every product a sum may add."""
    def np_attr(*names: str) -> ast.expr:
        node: ast.expr = ast.Name("np", ast.Load())
        for name in names:
            node = ast.Attribute(node, name, ast.Load())
        return node

    ravel = [ast.Call(np_attr("ravel"), [x], []) for x in (a, b)]
    return ast.Call(np_attr("multiply", "outer"), ravel, [])


@functools.lru_cache(maxsize=256)
def _rewritten(fn: Callable) -> tuple[object, int]:
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    wrap = _Wrap()
    tree = ast.fix_missing_locations(wrap.visit(tree))
    return compile(tree, inspect.getsourcefile(fn), "exec"), wrap.sites


def perturbed(fn: Callable) -> list[Callable]:
    """Copies of ``fn`` with inexact results moved up, down and two mixed ways;
    none when it has no inexact operation."""
    code, sites = _rewritten(fn)
    if not sites:
        return []
    rng = np.random.default_rng(0)
    patterns = [np.ones(sites), -np.ones(sites)] + [rng.choice([-1.0, 1.0], sites)
                                                    for _ in range(2)]
    copies = []
    for directions in patterns:
        namespace = dict(fn.__globals__, _nudge=functools.partial(nudge, directions))
        exec(code, namespace)
        copies.append(namespace[fn.__name__])
    return copies
