"""Python lists and dicts that traced control flow changes in place.

The branches of an if on a traced value and the body of a compiled loop are
each traced once, so ``out.append(x)`` in them would run once however often
(or whether) the code runs it. The runtime guards each traced body: the lists
and dicts it reaches through its closure are put back as they were if the
body changed one, and the body is traced again with their items as explicit
inputs and results (``with_state``), joined by an if like variables and
carried by a loop item by item. A loop that changes one's length cannot stay
a loop: ``Grows`` says so, and the runtime unrolls it when its trip count is
static.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from jitaic.tracer.trace import flatten


class Changed(Exception):
    """A traced body changed these containers (``(label, container)`` pairs)
    in place; they were put back as they were."""

    def __init__(self, containers: list[tuple[str, object]]) -> None:
        super().__init__(", ".join(label for label, _ in containers))
        self.containers = containers


class Grows(Exception):
    """A loop body changed the length (or keys) of a container it carries;
    ``what`` names it (``the list 'out'``)."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


def describe(label: str, container: object) -> str:
    return f"the {type(container).__name__} {label!r}"


def _reachable(fn: Callable) -> Iterator[tuple[str, object]]:
    """The lists and dicts ``fn`` reaches through its closure, at any depth
    of lists, tuples and dicts, each once, labelled by how the source names it."""
    seen: set[int] = set()
    cells = zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=True)
    stack = [(name, _content(cell)) for name, cell in cells]
    while stack:
        label, value = stack.pop()
        if not isinstance(value, (list, dict, tuple)) or id(value) in seen:
            continue
        seen.add(id(value))
        if not isinstance(value, tuple):
            yield label, value
        items = value.items() if isinstance(value, dict) else enumerate(value)
        stack += [(f"{label}[{key!r}]", item) for key, item in items]


def _content(cell) -> object:
    try:
        return cell.cell_contents
    except ValueError:  # a name not assigned yet
        return None


def contents(container: object) -> list | dict:
    """A shallow copy of a list's or dict's items."""
    return dict(container) if isinstance(container, dict) else list(container)


def install(container: object, items: list | dict) -> None:
    """Make ``container`` hold ``items`` (the same object, other items)."""
    if isinstance(container, dict):
        container.clear()
        container.update(items)
    else:
        container[:] = items


def _same(container: object, before: list | dict) -> bool:
    if isinstance(container, dict):
        return list(container) == list(before) and all(
            container[k] is v for k, v in before.items())
    return len(container) == len(before) and all(
        a is b for a, b in zip(container, before, strict=True))


def guarded(fn: Callable, source: Callable, exclude: Sequence[object] = ()) -> Callable:
    """``fn``, raising ``Changed`` (after undoing the change) when a call
    changes a list or dict that ``source`` (the body ``fn`` runs) reaches,
    other than those in ``exclude``."""
    skip = {id(c) for c in exclude}

    def run(*args):
        reached = [(label, c) for label, c in _reachable(source) if id(c) not in skip]
        before = [contents(c) for _, c in reached]

        def undo() -> None:
            for (_, c), b in zip(reached, before, strict=True):
                install(c, b)

        try:
            result = fn(*args)
        except BaseException:  # a branch that raises leaves nothing changed
            undo()
            raise
        changed = [(label, c) for (label, c), b in zip(reached, before, strict=True)
                   if not _same(c, b)]
        if changed:
            undo()
            raise Changed(changed)
        return result

    return run


def installing(fn: Callable, state: Sequence[tuple[str, object]]) -> Callable:
    """``fn`` given the ``state`` items as extra trailing arguments, which it
    finds installed in their containers (a while loop's test reads them)."""
    def run(*args):
        split = len(args) - len(state)
        for (_, c), items in zip(state, args[split:], strict=True):
            install(c, items)
        return fn(*args[:split])

    return run


def with_state(fn: Callable, source: Callable, state: Sequence[tuple[str, object]],
               check_growth: bool = False) -> Callable:
    """``guarded(fn, source)`` with the items of the ``state`` containers as
    extra trailing arguments and results: each call installs the items it
    gets, runs ``fn`` and returns the items the containers then hold. With
    ``check_growth`` a container whose structure changes raises ``Grows``."""
    inner = guarded(installing(fn, state), source, exclude=[c for _, c in state])

    def run(*args):
        result = tuple(inner(*args))
        after = [contents(c) for _, c in state]
        if check_growth:
            given = args[len(args) - len(state):]
            for (label, c), old, new in zip(state, given, after, strict=True):
                if flatten(old)[1] != flatten(new)[1]:
                    raise Grows(describe(label, c))
        return (*result, *after)

    return run


class Restoring:
    """Puts the ``state`` containers back as they were when the block
    raises (a traced attempt that is given up)."""

    def __init__(self, state: Sequence[tuple[str, object]]) -> None:
        self.saved = [(c, contents(c)) for _, c in state]

    def __enter__(self) -> Restoring:
        return self

    def __exit__(self, kind, *_) -> None:
        if kind is not None:
            for c, items in self.saved:
                install(c, items)
