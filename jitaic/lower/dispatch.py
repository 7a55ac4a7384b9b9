"""A compiled dispatcher for hot specialisations: the shape test runs inside numba.

A cached call finds its specialisation with a Python dict lookup on the
arguments' shapes, dtypes and layouts, about 1 µs on top of numba's own call.
Specialisations that are called often (``hot``) are gathered into one numba
function that compares the argument shapes with each specialisation's and
calls its compiled entry directly: numba's C dispatcher types the arguments,
so a hot call costs about what a bare numba call of the kernel does.

A call the dispatcher does not cover raises ``Miss`` (a shape it has no
branch for) or numba's ``TypeError`` (argument types it was not compiled for);
the caller then takes the Python path.
"""

from __future__ import annotations

import itertools
import linecache
import logging
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numba
from numba.core import types
from numba.extending import intrinsic, overload

log = logging.getLogger("jitaic")
_counter = itertools.count()


class Miss(Exception):
    """No hot specialisation matches these argument shapes."""


@intrinsic
def _int64_at(typingctx, address):
    """The int64 at a fixed address (a call counter owned by the JitFunction)."""
    signature = types.CPointer(types.int64)(address)

    def codegen(context, builder, sig, args):
        return builder.inttoptr(args[0], context.get_value_type(sig.return_type))

    return signature, codegen


@dataclass(frozen=True)
class HotEntry:
    """One specialisation as the dispatcher sees it."""

    entry: numba.core.dispatcher.Dispatcher  # compiled for exactly one signature
    shapes: tuple[tuple[int, ...], ...]       # of the array arguments, in order
    counter_address: int                      # int64 incremented on every hot call


def build(name: str, hot: Sequence[HotEntry]) -> tuple[numba.core.dispatcher.Dispatcher,
                                                       set[int]] | None:
    """One numba function dispatching on shape to the hot entries, and the
    indices of the entries it serves (None if it fails to compile).

    Each entry returns a tuple whose first item is the caller's result. Entries
    compiled for the same argument types form one group: one compiled
    signature of the dispatcher, one chain of shape tests. An entry whose
    result type differs from its group's first is left out (numba needs one
    return type per signature).
    """
    groups: dict[tuple, list[tuple[int, HotEntry]]] = {}
    for k, h in enumerate(hot):
        signature = h.entry.nopython_signatures[0]
        group = groups.setdefault(tuple(signature.args), [])
        if not group or _result_type(group[0][1]) == signature.return_type:
            group.append((k, h))
    served = {k for members in groups.values() for k, _ in members}
    table = next(_counter)
    params = ", ".join(f"a{i}" for i in range(len(hot[0].shapes)))
    try:
        _TABLES[table] = {arg_types: _group_impl(f"{name}#{table}", arg_types, members, params)
                          for arg_types, members in groups.items()}
        top = _exec(f"def hot({params}):\n    return _by_types({table}, {params})\n",
                    f"{name}#{table}", {"_by_types": _by_types}, "hot")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", numba.NumbaWarning)
            return numba.njit(list(groups))(top), served  # compiles every signature now
    except Exception as exc:  # the Python path still serves every call
        log.debug("%s: no compiled dispatcher (%s)", name, exc)
        return None
    finally:
        _TABLES.pop(table, None)  # only read while numba types the signatures


def _group_impl(label: str, arg_types: tuple, members, params: str):
    """The shape tests and entry calls for one group, as a Python function."""
    lines = ["def group(table, *args):", f"    {params}, = args"]
    indent = "    "
    layout_tests = [_layout_test(i, t) for i, t in enumerate(arg_types) if t.layout == "A"]
    if layout_tests:
        lines.append(f"    if {' and '.join(layout_tests)}:")
        indent = "        "
    for k, h in members:
        shapes = " and ".join(f"a{i}.shape == {s!r}" for i, s in enumerate(h.shapes))
        lines += [f"{indent}if {shapes}:",
                  f"{indent}    _int64_at({h.counter_address})[0] += 1",
                  f"{indent}    return e{k}({params})[0]"]
    lines.append("    raise Miss()")
    namespace = {f"e{k}": h.entry for k, h in members}
    namespace.update(Miss=Miss, _int64_at=_int64_at)
    return _exec("\n".join(lines) + "\n", label, namespace, "group")


def _exec(source: str, label: str, namespace: dict, fn_name: str):
    """Define ``fn_name`` from generated source (kept for tracebacks)."""
    filename = f"<jitaic-dispatch {label}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    return namespace[fn_name]


# Group implementations per dispatcher, chosen while numba types a call: the
# dispatcher's body must only mention the entries compiled for its argument
# types (calling another group's entry would compile it for the wrong types).
_TABLES: dict[int, dict[tuple, object]] = {}


def _by_types(table, *args):
    raise NotImplementedError("only callable from compiled code")


@overload(_by_types, prefer_literal=True)
def _by_types_overload(table, *args):
    if isinstance(table, types.IntegerLiteral):
        return _TABLES[table.literal_value].get(tuple(args))
    return None


def _result_type(h: HotEntry) -> types.Type:
    return h.entry.nopython_signatures[0].return_type


def _layout_test(i: int, array_type: types.Array) -> str:
    """A run-time test that 'A'-typed argument i is neither C- nor F-contiguous.

    numba types a C- or F-contiguous array by its layout, which the cache key's
    contiguity flags follow from; a contiguous array may still reach an 'A'
    signature by numba's casting, and its own (faster) specialisation should
    be compiled instead.
    """
    return f"not (a{i}.flags.c_contiguous or a{i}.flags.f_contiguous)"
