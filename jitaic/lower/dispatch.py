"""A compiled dispatcher for hot specialisations: the shape test runs inside numba.

A cached call finds its specialisation with a Python dict lookup on the
arguments' shapes, dtypes and layouts, about 1 µs on top of numba's own call.
Specialisations that are called often (``hot``) are gathered into one numba
function that compares the argument shapes with each specialisation's and
calls its compiled entry directly: numba's C dispatcher types the arguments,
so a hot call costs about what a bare numba call of the kernel does.

Two ways to serve a call the dispatcher has no branch for:

* ``build(..., fallback=None)``: it raises ``Miss`` (a shape it has no branch
  for) or numba's ``TypeError`` (argument types it was not compiled for), and
  the Python frame that called it takes the general path.
* ``build(..., fallback=f)``, for array results: the dispatcher itself is the
  function's ``__call__`` (no Python frame at all), so it calls ``f`` itself.
  Arguments of other types reach ``f`` through numba's own hook for them
  (``_compile_for_args``); a shape, an ndarray subclass or an active
  ``config.override`` without a branch reaches it through a C callback
  (ctypes) that is handed the argument objects. The compiled code must still
  return the type numba compiled it for, yet ``f`` may return anything
  (another rank, a tuple) or raise: the callback leaves the outcome in a
  thread-local slot and the code returns a stand-in array, which the boxing
  of the dispatcher's result (``HotResult``) swaps for the outcome.
"""

from __future__ import annotations

import ctypes
import functools
import itertools
import linecache
import logging
import threading
import warnings
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.boxing import box_array
from numba.core.datamodel.models import ArrayModel
from numba.core.dispatcher import OmittedArg
from numba.core.imputils import impl_ret_borrowed
from numba.extending import box, intrinsic, overload, register_model
from numba.np import numpy_support
from numba.np.arrayobj import populate_array

from jitaic import config

log = logging.getLogger("jitaic")
_counter = itertools.count()


MISSING = object()  # the dispatcher's default for a parameter the user's has none for


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
    shapes: tuple[tuple[int, ...] | type, ...]  # of the arguments (a scalar's: its type)
    counter_address: int                      # int64 incremented on every hot call


def build(name: str, params: Sequence[str], defaults: tuple, hot: Sequence[HotEntry],
          fallback: Callable | None = None,
          ) -> tuple[numba.core.dispatcher.Dispatcher, set[int]] | None:
    """One numba function of ``params`` (the last with ``defaults``)
    dispatching on shape to the hot entries, and the indices of the entries it
    serves (None if it fails to compile).

    Each entry returns a tuple whose first item is the caller's result. Entries
    compiled for the same argument types form one group: one compiled
    signature of the dispatcher, one chain of shape tests. An entry whose
    result type differs from its group's first is left out (numba needs one
    return type per signature). With a ``fallback`` (entries returning arrays)
    calls nothing serves go to it; without, they raise (module docstring).
    """
    groups: dict[tuple, list[tuple[int, HotEntry]]] = {}
    for k, h in enumerate(hot):
        signature = h.entry.nopython_signatures[0]
        group = groups.setdefault(tuple(signature.args), [])
        if not group or _result_type(group[0][1]) == signature.return_type:
            group.append((k, h))
    served = {k for members in groups.values() for k, _ in members}
    table = next(_counter)
    listed = ", ".join(params)
    try:
        _TABLES[table] = {arg_types: _group_impl(f"{name}#{table}", arg_types, members,
                                                 fallback)
                          for arg_types, members in groups.items()}
        # Every parameter has a default (MISSING where the user's has none):
        # numba's argument folding passes a call with arguments missing on to
        # the fallback, which raises Python's error. (A *args parameter would
        # do the same for too many arguments, at 10% of a call's time.)
        top = _exec(f"def {name}({listed}):\n"
                    f"    return _jitaic_by_types({table}, {listed})\n",
                    f"{name}#{table}", {"_jitaic_by_types": _by_types}, name)
        top.__defaults__ = (MISSING,) * (len(params) - len(defaults)) + defaults
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", numba.NumbaWarning)
            dispatcher = numba.njit(list(groups))(top)  # compiles every signature now
    except Exception as exc:  # the Python path still serves every call
        log.debug("%s: no compiled dispatcher (%s)", name, exc)
        return None
    finally:
        _TABLES.pop(table, None)  # only read while numba types the signatures
    if fallback is not None:
        _route_other_types(dispatcher, params, fallback)
    return dispatcher, served


def _group_impl(label: str, arg_types: tuple, members, fallback: Callable | None):
    """The shape tests and entry calls for one group, as a Python function."""
    params = ", ".join(f"a{i}" for i in range(len(arg_types)))
    namespace = {f"e{k}": h.entry for k, h in members}
    namespace.update(Miss=Miss, _int64_at=_int64_at)
    if fallback is None:
        tests = [_layout_test(i, t) for i, t in enumerate(arg_types)
                 if isinstance(t, types.Array) and t.layout == "A"]
        served, miss = "{}", ["    raise Miss()"]
    else:
        tests, served, miss = _direct_call_parts(arg_types, members, fallback, namespace)
    lines = ["def group(table, *args):", f"    {params}, = args"]
    indent = "    "
    if tests:
        lines.append(f"    if {' and '.join(tests)}:")
        indent = "        "
    for k, h in members:
        shapes = " and ".join(f"a{i}.shape == {s!r}" for i, s in enumerate(h.shapes)
                              if isinstance(s, tuple)) or "True"
        lines += [f"{indent}if {shapes}:",
                  f"{indent}    _int64_at({h.counter_address})[0] += 1",
                  f"{indent}    return {served.format(f'e{k}({params})[0]')}"]
    return _exec("\n".join(lines + miss) + "\n", label, namespace, "group")


def _direct_call_parts(arg_types: tuple, members, fallback: Callable, namespace: dict):
    """(tests, served result, miss lines) of a group whose dispatcher is the
    function's __call__ (module docstring). numba's C dispatcher matches
    argument types exactly once it may compile (it may: _route_other_types),
    so no layout tests; an override or a subclass must take the Python path."""
    number = next(_counter)
    _fallbacks[number] = fallback
    arrays = ", ".join(f"a{i}" for i in range(len(arg_types)))
    objects = ", ".join(f"_object_of(a{i})" for i in range(len(arg_types)))
    result_type = _result_type(members[0][1]).types[0]
    dtype = numpy_support.as_dtype(result_type.dtype).name
    namespace.update(_plain_arrays=_plain_arrays, _as_hot_result=_as_hot_result,
                     _call_fallback=_fallback_callback(len(arg_types)),
                     _object_of=_object_of, _stand_in=_stand_in)
    tests = [f"_int64_at({config.BYPASS.ctypes.data})[0] == 0", f"_plain_arrays(({arrays},))"]
    miss = [f"    _call_fallback({number}, {objects})",
            f"    return _stand_in({dtype!r}, {result_type.ndim})"]
    return tests, "_as_hot_result({})", miss


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


# ----------------------------------------------------- the direct call's misses

def _route_other_types(dispatcher, params: Sequence[str], fallback: Callable) -> None:
    """Arguments of types the dispatcher was not compiled for go to ``fallback``.

    numba's C dispatcher asks ``_compile_for_args`` for a function to call when
    no compiled signature matches, if it may compile; this one hands back the
    fallback instead of compiling. Arguments arrive folded, one per parameter
    (an omitted one as ``OmittedArg``); the call is rebuilt as the caller made
    it, up to keyword order.
    """
    def general(*named):
        omitted = [i for i, v in enumerate(named) if isinstance(v, OmittedArg)]
        if not omitted:
            return fallback(*named)
        # What follows an omitted parameter was passed by keyword.
        keywords = {p: v for p, v in zip(params[omitted[0]:], named[omitted[0]:], strict=True)
                    if not isinstance(v, OmittedArg)}
        return fallback(*named[:omitted[0]], **keywords)

    def compile_for_args(*args, **kwargs):
        dispatcher._types_active_call.clear()  # what numba's own method clears
        return general

    dispatcher._compile_for_args = compile_for_args
    dispatcher.disable_compile(False)


# A miss's outcome travels past numba in a thread-local slot. The dispatcher
# returns a stand-in array whose data pointer is _MISS_MARK's address (never
# read), which the boxing of its result recognises.
_missed = threading.local()
_MISS_MARK = ctypes.c_int64()
_MISS_ADDRESS = ctypes.addressof(_MISS_MARK)
_fallbacks: weakref.WeakValueDictionary[int, Callable] = weakref.WeakValueDictionary()


def _call_fallback(number: int, *pointers: int) -> None:
    """Run fallback ``number`` on the argument objects at these addresses and
    keep its outcome (a ctypes callback cannot raise)."""
    try:
        args = [ctypes.cast(p, ctypes.py_object).value for p in pointers]
        _missed.outcome = (True, _fallbacks[number](*args))
    except BaseException as exc:  # noqa: BLE001 - re-raised by _take_missed
        _missed.outcome = (False, exc)


@functools.cache
def _fallback_callback(arity: int):
    """A C function pointer to _call_fallback (number, then ``arity`` objects),
    which numba calls like any external function (an object-mode block
    instead added ~0.2 s to the compilation of every dispatcher)."""
    prototype = ctypes.CFUNCTYPE(None, ctypes.c_int64, *[ctypes.c_void_p] * arity)
    return prototype(_call_fallback)


def _take_missed():
    succeeded, value = _missed.outcome
    del _missed.outcome
    if not succeeded:
        raise value
    return value


class HotResult(types.Array):
    """An array result of the dispatcher (layout 'A') that may stand for a
    miss's outcome: when its data pointer is _MISS_ADDRESS."""

    def __init__(self, dtype, ndim: int) -> None:
        super().__init__(dtype, ndim, "A", name=f"hot_result({dtype}, {ndim}d)")


register_model(HotResult)(ArrayModel)


@box(HotResult)
def _box_hot_result(typ, val, c):
    array = c.context.make_array(typ)(c.context, c.builder, value=val)
    intp = c.context.get_value_type(types.intp)
    is_miss = c.builder.icmp_unsigned(
        "==", c.builder.ptrtoint(array.data, intp), ir.Constant(intp, _MISS_ADDRESS))
    with c.builder.if_else(is_miss) as (missed, served):
        with missed:
            take = c.env_manager.read_const(c.env_manager.add_const(_take_missed))
            from_miss = c.pyapi.call_function_objargs(take, [])  # NULL if it raised
            missed_block = c.builder.basic_block
        with served:
            boxed = box_array(types.Array(typ.dtype, typ.ndim, "A"), val, c)
            served_block = c.builder.basic_block
    result = c.builder.phi(boxed.type)
    result.add_incoming(from_miss, missed_block)
    result.add_incoming(boxed, served_block)
    return result


@intrinsic
def _as_hot_result(typingctx, array):
    """A served result, typed as the dispatcher's result."""
    if not isinstance(array, types.Array):
        return None

    def codegen(context, builder, sig, args):
        return impl_ret_borrowed(context, builder, sig.return_type, args[0])

    return HotResult(array.dtype, array.ndim)(array), codegen


@intrinsic(prefer_literal=True)
def _stand_in(typingctx, dtype, ndim):
    """The stand-in for a miss's outcome, typed as the dispatcher's result
    (literals: the dtype's name, the rank); no memory, nothing to free."""
    if not (isinstance(dtype, types.StringLiteral) and isinstance(ndim, types.IntegerLiteral)):
        return None
    result_type = HotResult(numpy_support.from_dtype(np.dtype(dtype.literal_value)),
                            ndim.literal_value)

    def codegen(context, builder, sig, args):
        array = context.make_array(result_type)(context, builder)
        zeros = [context.get_constant(types.intp, 0)] * result_type.ndim
        pointer = context.get_data_type(result_type.dtype).as_pointer()
        address = context.get_constant(types.intp, _MISS_ADDRESS)
        populate_array(array, data=builder.inttoptr(address, pointer), shape=zeros,
                       strides=zeros, itemsize=context.get_constant(types.intp, 1),
                       meminfo=None)
        return array._getvalue()

    return result_type(dtype, ndim), codegen


@intrinsic
def _object_of(typingctx, array):
    """The Python object an argument array was unboxed from."""
    def codegen(context, builder, sig, args):
        return context.make_array(sig.args[0])(context, builder, args[0]).parent

    return types.voidptr(array), codegen


# Where CPython keeps an object's type: the last field of every object's header.
_OB_TYPE_OFFSET = object.__basicsize__ - ctypes.sizeof(ctypes.c_void_p)


@intrinsic
def _plain_arrays(typingctx, arrays):
    """Every array of the tuple was passed in as an ``np.ndarray`` itself, not a
    subclass (numba takes subclasses as arrays; jitaic refuses them)."""
    def codegen(context, builder, sig, args):
        intp = context.get_value_type(types.intp)
        plain = cgutils.alloca_once_value(builder, cgutils.true_bit)
        for t, v in zip(sig.args[0], cgutils.unpack_tuple(builder, args[0]), strict=True):
            parent = context.make_array(t)(context, builder, v).parent
            with builder.if_else(cgutils.is_not_null(builder, parent)) as (passed_in, made):
                with passed_in:
                    address = builder.add(builder.ptrtoint(parent, intp),
                                          ir.Constant(intp, _OB_TYPE_OFFSET))
                    ob_type = builder.load(builder.inttoptr(address, intp.as_pointer()))
                    is_ndarray = builder.icmp_unsigned("==", ob_type,
                                                       ir.Constant(intp, id(np.ndarray)))
                    builder.store(builder.and_(builder.load(plain), is_ndarray), plain)
                with made:
                    builder.store(cgutils.false_bit, plain)
        return builder.load(plain)

    return types.boolean(arrays), codegen


def _header_layout_holds() -> bool:
    """The ob_type offset above is where this interpreter keeps types."""
    for value in (np.zeros(1), 1.5, "text"):
        stored = ctypes.c_void_p.from_address(id(value) + _OB_TYPE_OFFSET).value
        if stored != id(type(value)):
            return False
    return True


DIRECT_CALLS = _header_layout_holds()
