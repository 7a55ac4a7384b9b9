"""Writes through a loop variable that the loop rebinds.

A compiled loop carries a variable it rebinds (``z = z * 2``) as a value.
Where an iteration writes into the array the variable comes in as
(``z[0] += 1``), NumPy's write reaches every other name of that array, and
the carried value would lose it: such a loop is refused, naming the
variable. ``init`` are the values the loop starts from; ``writes_arg`` and
``outer_view`` say, per carried variable, whether the body writes into the
array it gets and whether it rebinds it to a view of an array from outside.
"""

from __future__ import annotations

from collections.abc import Sequence

from jitaic.errors import UnsupportedError, at, user_frames, user_location
from jitaic.tracer.core import Tracer


def refuse_lost_writes(init: Sequence[object], writes_arg: Sequence[bool],
                       outer_view: Sequence[bool], names: Sequence[str]) -> None:
    """Raise where a write would be lost: the first iteration's reaches the
    caller's argument, the array a view views, or another variable or list
    item holding the array; a later one's the outer array the previous
    iteration bound the variable to a view of."""
    for i, writes in enumerate(writes_arg):
        x = init[i] if i < len(init) else None
        seen = writes and isinstance(x, Tracer) and not x._scalar and shared_memory(x)
        if writes and (seen or outer_view[i]):
            name = names[i] if i < len(names) else f"#{i}"
            reached, fix = ("the array it comes in as (an argument, an array it views, one "
                            "another name holds, or one it is on some paths of an if or loop)",
                            f"copy it before the loop ({name} = {name}.copy())") if seen else (
                "the array outside the loop that an iteration binds it to a view of",
                "bind it to a copy (.copy())")
            raise UnsupportedError(
                f"loop variable {name!r} is written in place and bound to another array in "
                f"the loop{at(user_location())}: NumPy's writes reach {reached}, and a "
                f"compiled loop carries the variable as a value; {fix}, or keep the name "
                f"bound to one array")


def shared_memory(x: Tracer) -> bool:
    """Whether something besides the variable holding ``x`` reaches its
    memory: the caller (an argument), the array it views, an array it is on
    some paths (tracer/aliases.py), or another name in the user's code."""
    return x._buffer.param_index is not None or bool(x._view) or bool(x._buffer.may_be) \
        or _named_twice(x)


def _named_twice(x: Tracer) -> bool:
    """Whether the user's code holds ``x``'s array by another name too (``w =
    y`` or ``[y]`` before the loop, a view of it): their local variables,
    and the items of their lists, tuples and dicts."""
    names = 0
    for frame in user_frames():
        for value in frame.f_locals.values():
            items = value.values() if isinstance(value, dict) else value \
                if isinstance(value, (list, tuple)) else ()
            names += sum(isinstance(v, Tracer) and v._buffer is x._buffer
                         for v in (value, *items))
    return names > 1
