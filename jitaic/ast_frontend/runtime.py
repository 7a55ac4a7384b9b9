"""What the rewritten source calls: control flow that is static or traced.

Each helper looks at the values it gets: Python values run plain Python
(decided while tracing, like ``if x.shape[0] > 3``); traced values record the
structured control-flow ops of ``jitaic.tracer.control_flow`` and ``loops``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from jitaic.ast_frontend import containers
from jitaic.ast_frontend.loop_exits import VALUE_PREFIX
from jitaic.errors import (
    ConcretizationError,
    JitaicError,
    UnsupportedError,
    at,
    user_location,
)
from jitaic.ir import ops
from jitaic.tracer import control_flow, loops
from jitaic.tracer import numpy as tnp
from jitaic.tracer.core import Tracer, emit
from jitaic.tracer.numpy.common import require
from jitaic.tracer.trace import flatten, unflatten

# Loops with a static trip count up to this many iterations are unrolled when
# their body needs the index as a Python int (a slice length, say).
MAX_UNROLL = 64
# Loops that grow a Python list (``out.append(x)``) are unrolled up to this
# many iterations, as the trace frontend would; a longer one is refused (its
# graph would take longer to compile than the loop is worth).
MAX_UNROLL_GROWING = 1000


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
    return _traced_if(test, then_fn, else_fn, values, names, fill)


def if_return(test: object, then_fn: Callable, else_fn: Callable) -> object:
    """``if test: return a  else: return b`` (early returns on both paths)."""
    if not _traced(test):
        return then_fn() if test else else_fn()
    return _traced_if(test, then_fn, else_fn, (), ["the returned value"], (),
                      returns=True)[0]


def _traced_if(test: Tracer, then_fn: Callable, else_fn: Callable, values: Sequence,
               names: Sequence[str], fill: Sequence[str], returns: bool = False) -> tuple:
    """The cond of an if on a traced value: its variables (and the lists and
    dicts its branches change in place) joined leaf by leaf. A variable with
    another structure on each path is an error, unless it is undefined on
    one: then it is undefined after the if."""
    state: list[tuple[str, object]] = []
    undefined: set[int] = set()
    while True:
        join = _BranchJoin(names, state, undefined, returns)
        try:
            with containers.Restoring(state):
                operands, tree = flatten([*values, *(containers.contents(c)
                                                     for _, c in state)])
                outs = control_flow.cond(test, join.branch(then_fn, tree),
                                         join.branch(else_fn, tree), operands,
                                         join.leaf_names, UNDEFINED, fill)
        except containers.Changed as changed:
            state += changed.containers
            continue
        except _Mismatch as mismatch:
            if mismatch.undefined:
                undefined.add(mismatch.position)
                continue
            raise join.error(mismatch.position) from None
        results = unflatten(join.tree, outs)
        for (_, c), items in zip(state, results[len(names):], strict=True):
            containers.install(c, items)
        return tuple(results[:len(names)])


class _Mismatch(Exception):
    """The branches give output ``position`` different structures."""

    def __init__(self, position: int, undefined: bool) -> None:
        super().__init__(position)
        self.position, self.undefined = position, undefined


class _BranchJoin:
    """Flattens each branch's outputs (its variables, then the items of the
    ``state`` containers) to the leaves cond joins, and checks that both
    branches give each output the same structure. ``leaf_names`` is filled
    by the first branch traced (cond reads it only after tracing both)."""

    def __init__(self, names: Sequence[str], state: Sequence[tuple[str, object]],
                 undefined: set[int], returns: bool) -> None:
        self.names, self.state, self.undefined = list(names), state, undefined
        self.returns = returns
        self.tree: tuple | None = None
        self.trees: list[tuple] | None = None
        self.undefined_in: set[int] = set()
        self.leaf_names: list[str] = []

    def branch(self, fn: Callable, operand_tree: tuple) -> Callable:
        body = containers.with_state(
            (lambda: (fn(),)) if self.returns else fn, fn, self.state)
        return lambda *leaves: self._flat(body(*unflatten(operand_tree, leaves)))

    def _flat(self, outputs: Sequence[object]) -> tuple:
        outputs = [_Undefined(self.names[i]) if i in self.undefined else v
                   for i, v in enumerate(outputs)]
        undefined = {i for i, v in enumerate(outputs) if isinstance(v, _Undefined)}
        flat = [flatten(v) for v in outputs]
        trees = [t for _, t in flat]
        if self.trees is None:
            self.trees, self.undefined_in = trees, undefined
            self.tree = flatten(outputs)[1]
            self.leaf_names += [self._label(i) for i, (leaves, _) in enumerate(flat)
                                for _ in leaves]
        for i, (a, b) in enumerate(zip(self.trees, trees, strict=True)):
            if a != b:
                raise _Mismatch(i, i in undefined | self.undefined_in)
        return tuple(leaf for leaves, _ in flat for leaf in leaves)

    def _label(self, i: int) -> str:
        return self.names[i] if i < len(self.names) else self.state[i - len(self.names)][0]

    def error(self, i: int) -> UnsupportedError:
        if self.returns and i == 0:
            return UnsupportedError(f"the branches of an if on a traced value return "
                                    f"different structures{at(user_location())}")
        if i < len(self.names):
            return UnsupportedError(
                f"variable {self.names[i]!r} gets a different structure (a tuple, list or "
                f"dict of other items or length) in the branches of an if on a traced "
                f"value{at(user_location())}: give it the same structure on both paths")
        return UnsupportedError(
            f"{containers.describe(*self.state[i - len(self.names)])} is changed in place "
            f"differently in the branches of an if on a traced value{at(user_location())}: "
            f"its length or keys would depend on a value known only when the code runs; "
            f"give it the same items on both paths, or write into an array instead")


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


def len_(x: object) -> object:
    """Builtin len; of an array whose length is known at run time only, that
    length as a traced int (Python's own len must return an int)."""
    if _traced(x) and x.ndim and x.aval.shape[0] is None:
        return emit(ops.dim_size, [x], {"axis": 0})
    return len(x)


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

    def loop(state, body, init, names, observed):
        test = containers.installing(test_fn, state)
        return loops.while_loop(test, body, init, names, observed)

    try:
        return _compiled_loop(loop, body_fn, body_fn, values, names, observed)
    except containers.Grows as grows:
        raise _grows_error(grows.what, "whose trip count is known only when the code "
                                        "runs") from None


def for_range(bounds: Sequence, body_fn: Callable, values: Sequence,
              names: Sequence[str], observed: Sequence[str]) -> tuple:
    """``for i in range(*bounds)``: a for_loop with the index as an IR value."""
    r = range_(*bounds)
    return _indexed_loop(r.start, r.stop, r.step, body_fn, body_fn, values, names, observed)


def _indexed_loop(start, stop, step, body_fn: Callable, source: Callable, values: Sequence,
                  names: Sequence[str], observed: Sequence[str]) -> tuple:
    """The loop ``for i in range(start, stop, step)`` running ``body_fn``;
    ``source`` is the generated body function (whose closure it reaches)."""
    static = not any(_traced(b) for b in (start, stop, step))
    trips = len(range(start, stop, step)) if static else None
    if trips == 0:
        return tuple(values)

    def loop(_state, body, init, names, observed):
        return loops.for_loop(start, stop, step, body, init, names, observed)

    try:
        return _compiled_loop(loop, body_fn, source, values, names, observed)
    except ConcretizationError:
        if trips is None or trips > MAX_UNROLL:
            raise
    except containers.Grows as grows:
        if trips is None:
            raise _grows_error(grows.what, "whose trip count is known only when the "
                                            "code runs") from None
        if trips > MAX_UNROLL_GROWING:
            raise _grows_error(grows.what, f"of {trips} iterations (jitaic unrolls "
                                            f"such a loop up to {MAX_UNROLL_GROWING})") from None
    values = tuple(values)  # unrolled: the body needs a Python index or grows a list
    for i in range(start, stop, step):
        values = tuple(body_fn(i, *values))
    return values


def _compiled_loop(loop: Callable, body_fn: Callable, source: Callable, values: Sequence,
                   names: Sequence[str], observed: Sequence[str]) -> tuple:
    """``loop(state, body, init, names, observed)`` with the lists and dicts
    the body changes in place (``state``) carried as variables, their final
    items installed after it."""
    state: list[tuple[str, object]] = []
    while True:
        labels = [label for label, _ in state]
        body = containers.with_state(body_fn, source, state, check_growth=True)
        try:
            with containers.Restoring(state):
                out = loop(state, body, [*values, *(containers.contents(c) for _, c in state)],
                           [*names, *labels], [*observed, *labels])
        except containers.Changed as changed:
            state += changed.containers
            continue
        for (_, c), items in zip(state, out[len(values):], strict=True):
            containers.install(c, items)
        return tuple(out[:len(values)])


def _grows_error(what: str, loop: str) -> UnsupportedError:
    return UnsupportedError(
        f"{what} changes its length (or keys) in a loop {loop}{at(user_location())}: a "
        f"compiled loop carries the same items each iteration; write into an array made "
        f"before the loop (np.empty) instead of growing a list")


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
                         body_fn, values, names, observed)
