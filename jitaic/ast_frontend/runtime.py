"""What the rewritten source calls: control flow that is static or traced.

Each helper looks at the values it gets: Python values run plain Python
(decided while tracing, like ``if x.shape[0] > 3``); traced values record the
structured control-flow ops of ``jitaic.tracer.control_flow``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from jitaic.ast_frontend.loop_exits import VALUE_PREFIX
from jitaic.errors import (
    ConcretizationError,
    JitaicError,
    UnsupportedError,
    at,
    user_location,
)
from jitaic.tracer import control_flow
from jitaic.tracer import numpy as tnp
from jitaic.tracer.core import Tracer
from jitaic.tracer.numpy.common import require
from jitaic.tracer.trace import flatten, unflatten

# Loops with a static trip count up to this many iterations are unrolled when
# their body needs the index as a Python int (a slice length, say).
MAX_UNROLL = 64


class _Undefined:
    """The value of a variable that is not assigned on every path: any use of
    it (an attribute, an operator, a NumPy function) raises UnsupportedError
    naming the variable, where Python would raise UnboundLocalError on the
    path that skips the assignment (jitaic compiles both paths)."""

    def __init__(self, name: str | None = None) -> None:
        self.__dict__["name"] = name

    def __repr__(self) -> str:
        return "<undefined>"

    def fail(self, *_args, **_kwargs):
        what = f"variable {self.name!r}" if self.name else "a variable"
        raise UnsupportedError(f"{what} is used here but is assigned only on some paths "
                               f"(in one branch of an if on a traced value, say); assign "
                               f"it on every path{at(user_location())}")

    def __getattr__(self, name):
        self.fail()


for _method in ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv",
                "floordiv", "rfloordiv", "mod", "rmod", "pow", "rpow", "matmul", "rmatmul",
                "neg", "pos", "abs", "lt", "le", "gt", "ge", "bool", "len", "iter",
                "getitem", "setitem", "call", "and", "or", "xor", "invert", "float",
                "int", "index"):
    setattr(_Undefined, f"__{_method}__", _Undefined.fail)

UNDEFINED = _Undefined()


def returned(value: object) -> object:
    """The value of a ``return``: a variable assigned only on some paths in it
    is the error Python would raise on the path that skips the assignment."""
    for leaf in flatten(value)[0]:
        if isinstance(leaf, _Undefined):
            leaf.fail()
    return value


def get(namespace: dict, name: str) -> object:
    return namespace[name] if name in namespace else _Undefined(name)


def _traced(value: object) -> bool:
    return isinstance(value, Tracer)


def subscript(x: object, index: object) -> object:
    """``x[index]``. A NumPy array the function closes over, read at a traced
    index, becomes a constant of the trace first (NumPy cannot index with a
    traced value): ``A_col[A_row[i]:A_row[i + 1]]`` in a loop over ``i``."""
    if isinstance(x, np.ndarray) and any(_traced(leaf) for leaf in _index_leaves(index)):
        x = tnp.as_tracer(x)
    return x[index]


def _index_leaves(index: object) -> Iterator[object]:
    for entry in index if isinstance(index, tuple) else (index,):
        if isinstance(entry, slice):
            yield from (entry.start, entry.stop, entry.step)
        else:
            yield entry


def if_stmt(test: object, then_fn: Callable, else_fn: Callable, values: Sequence,
            names: Sequence[str]) -> tuple:
    if not _traced(test):
        return tuple((then_fn if test else else_fn)(*values))
    # a loop's pending return value is read only where its flag says it was set
    fill = [n for n in names if n.startswith(VALUE_PREFIX)]
    return tuple(control_flow.cond(test, then_fn, else_fn, values, names, UNDEFINED, fill))


def if_return(test: object, then_fn: Callable, else_fn: Callable) -> object:
    """``if test: return a  else: return b`` (early returns on both paths)."""
    if not _traced(test):
        return then_fn() if test else else_fn()
    trees: dict[str, tuple] = {}

    def leaves_of(fn: Callable, key: str) -> Callable:
        def branch():
            leaves, trees[key] = flatten(fn())
            return tuple(leaves)

        return branch

    outs = control_flow.cond(test, leaves_of(then_fn, "then"), leaves_of(else_fn, "else"), [])
    for key, other in (("then", "else"), ("else", "then")):  # a branch that raises
        trees.setdefault(key, trees[other])
    if trees["then"] != trees["else"]:
        raise UnsupportedError(f"the branches of an if on a traced value return different "
                               f"structures{at(user_location())}")
    return unflatten(trees["then"], outs)


def ifexp(test: object, then_fn: Callable, else_fn: Callable) -> object:
    return if_return(test, then_fn, else_fn)


def and_(*operands: Callable) -> object:
    value = operands[0]()
    for operand in operands[1:]:
        if _traced(value):
            value = np.logical_and(value, _right_operand(operand, value, False))
        elif not value:
            return value
        else:
            value = operand()
    return value


def or_(*operands: Callable) -> object:
    value = operands[0]()
    for operand in operands[1:]:
        if _traced(value):
            value = np.logical_or(value, _right_operand(operand, value, True))
        elif value:
            return value
        else:
            value = operand()
    return value


def _right_operand(operand: Callable, left: Tracer, decided_by: bool) -> object:
    """The right operand of ``and``/``or`` after a traced left one. Python
    evaluates it only where the left one does not decide (``decided_by``, the
    left's truth value that does): NumPy's error from it (the minimum of an
    empty array) is raised only where it runs; the result is then decided."""
    try:
        return operand()
    except Exception as exc:
        if not control_flow.numpys_error(exc) or left.size != 1:
            raise
        decided = tnp.astype(tnp.reshape(left, ()), np.bool_)
        control_flow.raise_when_run(exc, unless=decided if decided_by else ~decided)
        return decided_by


def max_(*values: object) -> object:
    """Builtin max of several values; traced ones give np.maximum (NaN propagates,
    where Python's max would depend on the argument order)."""
    if not any(_traced(v) for v in values):
        return max(*values)
    return functools.reduce(np.maximum, values)


def min_(*values: object) -> object:
    if not any(_traced(v) for v in values):
        return min(*values)
    return functools.reduce(np.minimum, values)


def assert_(test: object, message: Callable) -> None:
    """Python's assert; on a traced test, AssertionError when the code runs with
    the message as it reads while tracing (a message formatting traced values
    cannot: the assertion's text stands for it)."""
    if not _traced(test):
        if not test:
            text = message()
            raise AssertionError() if text is None else AssertionError(text)
        return
    try:
        text = message()
        text = "" if text is None else str(text)
    except JitaicError:  # an f-string of traced values
        text = "assertion failed"
    if test.size != 1:
        raise ValueError(f"The truth value of an array with more than one element is "
                         f"ambiguous. Use a.any() or a.all(){at(user_location())}")
    require(tnp.astype(tnp.reshape(test, ()), np.bool_), AssertionError, text)


def not_(value: object) -> object:
    return np.logical_not(value) if _traced(value) else not value


def while_stmt(test_fn: Callable, body_fn: Callable, values: Sequence,
               names: Sequence[str], observed: Sequence[str]) -> tuple:
    values = tuple(values)
    while True:
        test = test_fn(*values)
        if _traced(test) or any(_traced(v) for v in values):
            break
        if not test:
            return values
        values = tuple(body_fn(*values))
    return tuple(control_flow.while_loop(lambda *v: test_fn(*v), body_fn, values, names,
                                         observed))


def for_range(bounds: Sequence, body_fn: Callable, values: Sequence,
              names: Sequence[str], observed: Sequence[str]) -> tuple:
    """``for i in range(*bounds)``: a for_loop with the index as an IR value."""
    r = range_(*bounds)
    return _indexed_loop(r.start, r.stop, r.step, body_fn, values, names, observed)


def _indexed_loop(start, stop, step, body_fn: Callable, values: Sequence,
                  names: Sequence[str], observed: Sequence[str]) -> tuple:
    static = not any(_traced(b) for b in (start, stop, step))
    if static and len(range(start, stop, step)) == 0:
        return tuple(values)
    try:
        return tuple(control_flow.for_loop(start, stop, step, body_fn, values, names,
                                           observed))
    except ConcretizationError:
        if not static or len(range(start, stop, step)) > MAX_UNROLL:
            raise
    values = tuple(values)  # the body needs a Python index: unroll the short loop
    for i in range(start, stop, step):
        values = tuple(body_fn(i, *values))
    return values


# ---------------------------------------------------------------- for over sequences
# ``for row in x``, ``enumerate(x)``, ``zip(x, y)`` over traced arrays run as
# a for_loop over the index; each iterable says how many items it has and
# what item ``i`` is. Python containers (lists of arrays, dicts) are iterated
# in Python while tracing, as before.


class _Indexed:
    length: object  # Python int, or a traced integer (range with traced bounds)

    def item(self, i: object) -> object:
        raise NotImplementedError


class _ArrayItems(_Indexed):
    def __init__(self, x: Tracer) -> None:
        if x.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        self.x, self.length = x, x.shape[0]

    def item(self, i):
        return self.x[i]

    def __iter__(self):  # zipped with a Python container: iterated while tracing
        return iter(self.x)


class range_(_Indexed):  # noqa: N801 (it stands for the builtin)
    def __init__(self, *bounds) -> None:
        start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else (
            *bounds, 1)[:3]
        self.start, self.stop, self.step = start, stop, step
        if _traced(start) or _traced(stop) or _traced(step):
            self.length = np.maximum((stop - start + step - np.sign(step)) // step, 0)
        else:
            self.length = len(range(start, stop, step))

    def item(self, i):
        return self.start + i * self.step

    def __iter__(self):  # a static range inside zip/enumerate of Python values
        return iter(range(self.start, self.stop, self.step))


class enumerate_(_Indexed):  # noqa: N801
    def __init__(self, inner: object, start: int = 0) -> None:
        self.inner, self.start = inner, start
        self.length = getattr(inner, "length", None)

    def item(self, i):
        return self.start + i, self.inner.item(i)

    def __iter__(self):
        return enumerate(self.inner, self.start)


class zip_(_Indexed):  # noqa: N801
    def __init__(self, *inners: object, strict: bool = False) -> None:
        self.inners = inners
        lengths = [getattr(x, "length", None) for x in inners]
        self.length = None if None in lengths or not lengths else functools.reduce(
            lambda a, b: np.minimum(a, b) if _traced(a) or _traced(b) else min(a, b),
            lengths)
        if strict and self.length is not None and len(set(lengths)) > 1:
            raise ValueError("zip() arguments have different lengths")

    def item(self, i):
        return tuple(x.item(i) for x in self.inners)

    def __iter__(self):
        return zip(*self.inners)


def iterate(x: object) -> object:
    """A traced array iterates by index; anything else as Python does."""
    return _ArrayItems(x) if _traced(x) else x


def for_iter(iterable: object, body_fn: Callable, values: Sequence,
             names: Sequence[str], observed: Sequence[str]) -> tuple:
    """``for target in iterable``: a for_loop over the index when the iterable is
    (built from) traced arrays, a Python loop otherwise."""
    length = getattr(iterable, "length", None)
    if length is None:
        values = tuple(values)
        for item in iterable:
            values = tuple(body_fn(item, *values))
        return values
    return _indexed_loop(0, length, 1, lambda i, *v: body_fn(iterable.item(i), *v),
                         values, names, observed)
