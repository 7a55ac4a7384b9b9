"""Variables that are an outer array's memory on some paths only.

NumPy binds a name to an array object. After ``v = x[1:] if c else v * 2``,
or a loop that may run zero times leaving ``v = x``, ``v`` is ``x``'s memory
on some paths and a new array on others; later writes into either reach the
other where they share memory. A compiled if or loop hands on values, so the
variable gets a buffer of its own (the merged value) and an ``Alias`` per
outer array it may be: where ``flag`` holds when the code runs, the variable
is ``view`` of ``outer``. A write into the outer array updates the variable
where the flag holds, and a write into the variable updates the outer array
there (``where`` selects), as NumPy's shared memory would.

Where jitaic cannot name the paths (a view that changes from iteration to
iteration, an alias made by an if nested in the branch or body), ``flag`` is
None: writing into the variable is refused, and so is reading it after the
outer array changed. Neither is ever a silently stale value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from jitaic.errors import UnsupportedError, at, user_location
from jitaic.ir import ops
from jitaic.ir.graph import Value
from jitaic.tracer.core import Buffer, Tracer, ViewStep, current

# When an alias holds: a run-time bool, or a function that emits one where it
# is needed (nothing is emitted right after the if or loop: autodiff replays a
# loop and takes the last node it emits for the loop).
Flag = Value | Callable[[], Value]


@dataclass(eq=False)
class Alias:
    merged: Buffer  # the variable's own buffer
    outer: Buffer  # the array it may be (a view of)
    view: tuple[ViewStep, ...]
    flag: Flag | None  # it is that view where this holds (None: jitaic cannot say when)
    negated: bool  # ... where it does not hold
    block: int  # the block that has the flag's inputs: the alias lives while it is open
    name: str  # the variable, for messages


def register(merged: Buffer, outer: Buffer, view: tuple[ViewStep, ...], flag: Flag | None,
             name: str, construct: str, negated: bool = False) -> None:
    """``merged`` is ``view`` of ``outer`` where ``flag`` holds (``negated``:
    where it does not). ``construct`` ("if", "loop") says what made the
    variable, for messages."""
    if merged is outer:
        return
    alias = Alias(merged, outer, view, flag, negated, current().builder.block_serial, name)
    merged.may_be.append(alias)
    outer.aliases.append(alias)
    if flag is None and merged.no_writes is None:
        merged.no_writes = (
            f"writing into variable {name!r} is not supported: after the {construct} it is "
            f"an array from outside the {construct} on some paths, which jitaic cannot "
            f"tell when it runs (NumPy's write would reach that array there); make it a "
            f"copy (.copy()) or write into the outer array itself")


def after_write(buffer: Buffer) -> None:
    """Carry a write into ``buffer`` to the buffers that share its memory on
    some paths."""
    _propagate(buffer, {id(buffer)})


def _propagate(buffer: Buffer, seen: set[int]) -> None:
    touched: dict[int, Buffer] = {}
    for alias in _live(buffer, "aliases"):  # buffer is the outer array
        merged = alias.merged
        if id(merged) in seen:
            continue
        view = Tracer(buffer, alias.view).value if alias.flag is not None else None
        if view is None or not _compatible(view, merged.value):
            merged.stale = (
                f"variable {alias.name!r} may be the memory of an array written since (on "
                f"paths jitaic cannot tell when it runs), and NumPy would read that write "
                f"through it; make it a copy (.copy()) where it is bound")
            continue
        _store(merged, _select(alias, view, merged.value))
        touched[id(merged)] = merged
    for alias in _live(buffer, "may_be"):  # buffer is the variable
        outer = alias.outer
        if id(outer) in seen or alias.flag is None:  # (writes refused: register)
            continue
        target = Tracer(outer, alias.view)
        old = target.value
        if not _compatible(old, buffer.value):
            raise UnsupportedError(
                f"writing into variable {alias.name!r} is not supported here: it is an "
                f"array of type {old.type} from outside on some paths and {buffer.value.type} "
                f"on others{at(user_location())}")
        target.store(_select(alias, buffer.value, old))
        touched[id(outer)] = outer
    seen.update(touched)
    for other in touched.values():  # what shares memory with those, in turn
        _propagate(other, seen)


def _live(buffer: Buffer, attribute: str) -> list[Alias]:
    """The buffer's aliases whose flag can still be read (its block is open);
    the others are dropped."""
    builder = current().builder
    live = [a for a in getattr(buffer, attribute) if builder.is_open(a.block)]
    setattr(buffer, attribute, live)
    return live


def _store(buffer: Buffer, value: Value) -> None:
    current().log_write(buffer)
    buffer.value, buffer.version = value, buffer.version + 1


def _compatible(a: Value, b: Value) -> bool:
    """Whether one variable may hold ``a`` on some paths and ``b`` on others
    (axes may differ in length: the variable's is then a run-time length)."""
    return a.dtype == b.dtype and a.type.ndim == b.type.ndim


def _select(alias: Alias, then: Value, otherwise: Value) -> Value:
    """``then`` where the alias holds when the code runs, else ``otherwise``:
    elementwise where both have one shape, else an if (NumPy's where would
    broadcast the path not taken)."""
    flag = alias.flag if isinstance(alias.flag, Value) else alias.flag()
    if alias.negated:
        then, otherwise = otherwise, then
    if then.type == otherwise.type:
        return current().builder.emit(ops.where, (flag, then, otherwise), {},
                                      loc=user_location()).output
    from jitaic.tracer.control_flow import if_of_values  # (control_flow imports this module)

    return if_of_values(flag, then, otherwise)
