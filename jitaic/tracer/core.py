"""Tracer values and the trace context that records their operations as IR.

A Tracer stands for an array while a function runs on abstract values. Its
data lives in a ``Buffer``; views (basic indexing, transposes) share their
base's buffer, so ``v = x[1:]; v[0] = 5`` updates ``x`` exactly as NumPy does:
a write through a view becomes a functional ``setitem`` on the base value, and
every view re-derives its value from the base's current version when read.
"""

from __future__ import annotations

import functools
import operator
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from jitaic.errors import (
    ConcretizationError,
    JitaicError,
    SourceLoc,
    StaticArgumentNeeded,
    UnsupportedError,
    at,
    called_by_user,
    user_location,
)
from jitaic.ir import ops
from jitaic.ir.graph import Builder, Value
from jitaic.ir.types import TensorType, check_supported_dtype

_state = threading.local()


class TraceContext:
    """Collects the nodes of one trace and turns concrete operands into constants."""

    def __init__(self) -> None:
        self.builder = Builder()
        self.converter = None  # how user functions are prepared (numpy_proxy.Converter)
        self._constants: dict[tuple[int, int], tuple[object, Value]] = {}
        # Per open region: outer buffers written inside it, with their values
        # before the first write (control flow turns them into region results).
        self.write_logs: list[dict[int, tuple[Buffer, Value, int]]] = []
        # The smallest and largest value of each for-loop index with static bounds.
        self.index_bounds: dict[Value, tuple[int, int]] = {}

    @property
    def depth(self) -> int:
        """How many regions (cond branches, loop bodies) are open."""
        return len(self.builder._blocks) - 1

    def log_write(self, buffer: Buffer) -> None:
        if self.write_logs and buffer.depth < self.depth and id(buffer) not in self.write_logs[-1]:
            self.write_logs[-1][id(buffer)] = (buffer, buffer.value, buffer.version)

    def __enter__(self) -> TraceContext:
        stack = getattr(_state, "stack", None)
        if stack is None:
            stack = _state.stack = []
        stack.append(self)
        return self

    def __exit__(self, *exc) -> None:
        _state.stack.pop()

    def constant(self, value: object) -> Value:
        """A constant node for a concrete operand (array, NumPy or Python scalar)."""
        key = (id(value), self.builder.block_serial)  # constants are per region
        if key in self._constants and self._constants[key][0] is value:
            return self._constants[key][1]
        weak = isinstance(value, (bool, int, float, complex)) \
            and not isinstance(value, np.generic)
        array = np.array(value)
        if weak and isinstance(value, int) and not isinstance(value, bool):
            # int64 unless only uint64 holds it (a weak int's dtype does not take
            # part in promotion; the ufunc and store rules check its range first)
            array = np.array(value, dtype=np.uint64 if value > _INT64_MAX else np.int64)
        check_supported_dtype(array.dtype, "a constant")
        array.flags.writeable = False
        node = self.builder.emit(ops.constant, (), {"value": array, "weak": weak},
                                 loc=user_location())
        self._constants[key] = (value, node.output)
        return node.output


_INT64_MAX = np.iinfo(np.int64).max


def current() -> TraceContext:
    stack = getattr(_state, "stack", None)
    if not stack:
        raise RuntimeError("no jitaic trace is active")
    return stack[-1]


def is_tracing() -> bool:
    return bool(getattr(_state, "stack", None))


@dataclass(eq=False)
class Buffer:
    """Mutable storage behind a traced array and all its views."""

    value: Value
    version: int = 0
    param_index: int | None = None
    depth: int = 0  # the region depth it was created at
    c_contiguous: bool = True  # arguments may not be; reshapes of those copy
    # Why writing into it is refused (None: writes are fine). An if whose
    # branches disagree on whether a variable views an outer array gives that
    # variable a buffer of its own: a write through it could not reach the
    # outer array on the path where NumPy's would.
    no_writes: str | None = None
    read_only: bool = False  # NumPy's read-only arrays (np.broadcast_to): ValueError
    # Memory shared on some paths only (tracer/aliases.py): the variables that
    # may be this array, and the arrays this variable may be.
    aliases: list = field(default_factory=list)
    may_be: list = field(default_factory=list)
    # Why reading it is refused: an array it may be was written, on paths
    # jitaic cannot tell when it runs.
    stale: str | None = None


READ_ONLY = "read-only"  # a view NumPy makes read-only (ViewStep.no_writes)


@dataclass(frozen=True)
class ViewStep:
    """One view op from a base value to a view value (emitted when the view is
    read), and back for writes (``_WRITE_THROUGH``). NumPy's ``z.real`` and
    ``z.imag`` are views too: computed (elementwise ops) in the IR, they are
    read again after a write, and written back with the other part."""
    op: ops.Op  # getitem, dyn_getitem, transpose, reshape, real or imag
    attrs: tuple[tuple[str, object], ...]  # the op's attributes, as items
    inputs: tuple[Value, ...] = ()  # dyn_getitem's run-time indices
    # where the user wrote the view: its node is emitted later, when first read
    loc: SourceLoc | None = field(default=None, compare=False)
    # a view writes cannot go through (a broadcast): READ_ONLY for NumPy's
    # ValueError, else why jitaic refuses them
    no_writes: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        assert self.op in _WRITE_THROUGH or self.no_writes, self.op

    @property
    def attr(self) -> object:
        """The op's one attribute (an index, a permutation or a shape)."""
        ((_, value),) = self.attrs
        return value


class TracedShape(tuple):
    """The shape the user's code reads of an array with run-time lengths: those
    entries are traced int64. It compares as NumPy's tuple does, entry by
    entry, but where a run-time length takes part the answer is known only
    when the code runs: ``a.shape == b.shape`` is then a traced bool (an ``if``
    or ``assert`` on it is checked at run time), not Python's bool() of a
    traced value. Slices and sums of it stay traced shapes."""

    __slots__ = ()

    def __eq__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        if len(self) != len(other):
            return False
        unknown = []
        for mine, theirs in zip(self, other, strict=True):
            if _same_length(mine, theirs):
                continue
            if not isinstance(mine, Tracer) and not isinstance(theirs, Tracer):
                return False
            unknown.append(mine == theirs)
        return functools.reduce(operator.and_, unknown) if unknown else True

    def __ne__(self, other):
        equal = self.__eq__(other)
        if equal is NotImplemented or not isinstance(equal, Tracer):
            return equal if equal is NotImplemented else not equal
        return ~equal

    __hash__ = tuple.__hash__

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return TracedShape(item) if isinstance(index, slice) else item

    def __add__(self, other):
        return TracedShape((*self, *other)) if isinstance(other, tuple) else NotImplemented

    def __radd__(self, other):
        return TracedShape((*other, *self)) if isinstance(other, tuple) else NotImplemented


def traced_shape(x: Tracer) -> tuple[int | Tracer, ...]:
    """``x``'s shape with each run-time length as a traced int64 (``dim_size``)."""
    if None not in x.aval.shape:
        return x.aval.shape
    return TracedShape(emit(ops.dim_size, [x], {"axis": axis}) if d is None else d
                       for axis, d in enumerate(x.aval.shape))


def _same_length(a: object, b: object) -> bool:
    """Whether two shape entries are equal whatever the code runs on: equal
    ints, or the same run-time length (one axis of one value)."""
    if not isinstance(a, Tracer) or not isinstance(b, Tracer):
        return not isinstance(a, Tracer) and not isinstance(b, Tracer) and a == b
    if a.value is b.value:
        return True
    made_a, made_b = a.value.producer, b.value.producer
    return (made_a is not None and made_b is not None and made_a.op is ops.dim_size
            and made_b.op is ops.dim_size and made_a.inputs[0] is made_b.inputs[0]
            and made_a.attrs["axis"] == made_b.attrs["axis"])


class Tracer:
    """An abstract array: shape and dtype known, value recorded as IR."""

    __array_priority__ = 1000
    __slots__ = ("_buffer", "_view", "_cache", "_scalar", "_kind", "__weakref__")

    def __init__(self, buffer: Buffer, view: tuple[ViewStep, ...] = (),
                 scalar: bool = False) -> None:
        self._buffer = buffer
        self._view = view
        self._cache: tuple[int, int, Value] | None = None  # (version, block, value)
        self._scalar = scalar
        # a 0-d value that is a NumPy scalar on some paths of an if and a 0-d
        # array on others: a run-time bool, True where it is the scalar (what
        # the function returns follows it; operations see ``_scalar``)
        self._kind: Value | None = None

    # ------------------------------------------------------------ value access
    @property
    def value(self) -> Value:
        """A view's value is recorded where it is first read, and read again
        from there while its base is unchanged and that block is still open: a
        value recorded in one branch of an if is not the other branch's."""
        if self._buffer.stale is not None:
            raise UnsupportedError(f"{self._buffer.stale}{at(user_location())}")
        if not self._view:
            return self._buffer.value
        builder = current().builder if is_tracing() else None
        cache = self._cache
        if cache is None or cache[0] != self._buffer.version or (
                builder is not None and not builder.is_open(cache[1])):
            v = self._buffer.value
            for step in self._view:
                v = _apply_view(step, v)
            cache = self._cache = (self._buffer.version,
                                   builder.block_serial if builder else 0, v)
        return cache[2]

    @property
    def aval(self) -> TensorType:
        return self.value.type

    @property
    def shape(self) -> tuple[int, ...]:
        """NumPy's shape. Inside jitaic a length known at run time only
        (``x[mask]``, ``x[:i]``) is None; the user's code gets it as a traced
        int64, as ``size`` does (None would read as a value: ``range(None)``
        fails, ``n == 0`` is False)."""
        shape = self.aval.shape
        return traced_shape(self) if None in shape and called_by_user() else shape

    @shape.setter
    def shape(self, new) -> None:
        """``x.shape = ...`` reshapes this array object in place, as a view of
        its own data (other names of the data keep their shapes); where that
        would need a copy, NumPy's AttributeError."""
        from jitaic.tracer.numpy.shapes import reshape

        if self._scalar:
            raise AttributeError("attribute 'shape' of 'numpy.generic' objects is not "
                                 "writable")
        reshaped = reshape(self, new)
        if reshaped._buffer is not self._buffer:
            raise AttributeError("Incompatible shape for in-place modification. Use "
                                 "`.reshape()` to make a copy with the desired shape.")
        self._view, self._cache = reshaped._view, None

    @property
    def dtype(self) -> np.dtype:
        return self.aval.dtype

    @property
    def ndim(self) -> int:
        return self.aval.ndim

    @property
    def size(self) -> int | Tracer:
        """The element count: an int, or a traced int64 when a dimension's
        length is known at run time only (x[mask], x[:i]) - never None, which
        Python code would read as 0."""
        if None not in self.shape:
            return self.aval.size
        count: int | Tracer = int(np.prod([d for d in self.shape if d is not None],
                                          dtype=np.int64))
        for axis, d in enumerate(self.shape):
            if d is None:
                count = count * emit(ops.dim_size, [self], {"axis": axis})
        return count

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        if self.shape[0] is None:
            raise ConcretizationError(
                f"len() of an array whose length is known only when the compiled code "
                f"runs (x[mask], x[:i]){at(user_location())}: len() must return a Python "
                f"int; x.size gives the count as a traced value")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __repr__(self) -> str:
        return f"Tracer({self.aval})"

    def __str__(self) -> str:
        # print(x) / f"{x}" inside a jitted function would show a placeholder at
        # compile time, never the values: refuse instead of misleading.
        raise UnsupportedError(f"printing or formatting a traced array is not supported"
                               f"{at(user_location())}: its values exist only when the "
                               f"compiled code runs (print the result outside the jitted "
                               f"function, or run with JITAIC_DISABLE_JIT=1)")

    def __format__(self, spec: str) -> str:
        return self.__str__()

    # ------------------------------------------------------------ writes
    def write(self, new_value: Value) -> None:
        """Replace this array's contents (NumPy in-place semantics, views included)."""
        refusals = [step.no_writes for step in self._view if step.no_writes]
        if self._buffer.read_only or READ_ONLY in refusals:
            raise ValueError(f"assignment destination is read-only{at(user_location())}")
        if self._buffer.no_writes or refusals:
            raise UnsupportedError(f"{self._buffer.no_writes or refusals[0]}"
                                   f"{at(user_location())}")
        self.store(new_value)
        if self._buffer.aliases or self._buffer.may_be:
            from jitaic.tracer.aliases import after_write  # (it builds on this module)

            after_write(self._buffer)

    def store(self, new_value: Value) -> None:
        """``write`` without its checks and without reaching other buffers."""
        current().log_write(self._buffer)
        for depth in range(len(self._view), 0, -1):
            base = self._buffer.value
            for step in self._view[: depth - 1]:
                base = _apply_view(step, base)
            new_value = _unapply_view(self._view[depth - 1], base, new_value)
        self._buffer.value = new_value
        self._buffer.version += 1

    # ------------------------------------------------------------ no concrete values
    def _concretize(self, what: str):
        loc = user_location()
        raise ConcretizationError(
            f"{what} of a traced array{at(loc)}: the value is only known when the "
            f"compiled code runs. Python control flow on array values needs "
            f'@jitaic.jit(mode="ast") (or mode="auto").'
        )

    def __bool__(self):
        self._concretize("Python bool()")

    def __int__(self):
        self._python_float_argument("Python int()")
        self._concretize("Python int()")

    def __float__(self):
        self._python_float_argument("Python float()")
        self._concretize("Python float()")

    def _python_float_argument(self, what: str) -> None:
        """A Python float argument itself, unchanged, asked for its value (a
        count, ``range(int(n))``): the function is specialised on it."""
        buffer = self._buffer
        if buffer.param_index is not None and not self._view and buffer.version == 0 \
                and buffer.value.type.weak and buffer.value.type.dtype.kind == "f":
            raise StaticArgumentNeeded(f"{what} of the Python float argument "
                                       f"{buffer.value.name!r}{at(user_location())}",
                                       buffer.value.name)

    def __complex__(self):
        self._concretize("Python complex()")

    def __index__(self):
        self._concretize("use as a Python index/int")

    def item(self, *args):
        self._concretize(".item()")

    def tolist(self):
        self._concretize(".tolist()")

    def __array__(self, dtype=None, copy=None):
        self._concretize("conversion to a NumPy array (np.asarray/np.array outside "
                         "the traced function's own numpy)")


def _apply_view(step: ViewStep, base: Value) -> Value:
    loc = step.loc or user_location()
    return current().builder.emit(step.op, (base, *step.inputs), dict(step.attrs),
                                  loc=loc).output


def _unapply_view(step: ViewStep, base: Value, new_view: Value) -> Value:
    """``base`` with ``new_view`` written through ``step``."""
    op, inputs, attrs = _WRITE_THROUGH[step.op](step, base, new_view)
    return current().builder.emit(op, inputs, attrs, loc=user_location()).output


def _inverse_permutation(step: ViewStep, base: Value, new_view: Value) -> tuple:
    inverse = tuple(int(i) for i in np.argsort(step.attr))
    return ops.transpose, (new_view,), {"perm": inverse}


def _with_part(step: ViewStep, base: Value, new_part: Value) -> tuple:
    """A complex ``base`` with its real or imaginary part replaced."""
    other = ops.imag if step.op is ops.real else ops.real
    kept = current().builder.emit(other, (base,), {}, loc=user_location()).output
    return ops.make_complex, (new_part, kept) if step.op is ops.real else (kept, new_part), {}


# The op, inputs and attributes that write a view's new value into its base.
_WRITE_THROUGH = {
    ops.real: _with_part,
    ops.imag: _with_part,
    ops.getitem: lambda step, base, new: (ops.setitem, (base, new), dict(step.attrs)),
    ops.dyn_getitem: lambda step, base, new: (
        ops.dyn_setitem, (base, new, *step.inputs), dict(step.attrs)),
    ops.reshape: lambda step, base, new: (ops.reshape, (new,), {"shape": base.type.shape}),
    ops.transpose: _inverse_permutation,
}


# ---------------------------------------------------------------- emitting ops

def to_value(x: object) -> Value:
    if isinstance(x, Tracer):
        return x.value
    if isinstance(x, (np.ndarray, np.generic, bool, int, float, complex)):
        return current().constant(x)
    if isinstance(x, (list, tuple)):
        from jitaic.tracer.numpy import array_from_nested

        return to_value(array_from_nested(x))
    raise UnsupportedError(f"operand of type {type(x).__name__} is not supported"
                           f"{at(user_location())}")


def is_scalar_like(x: object) -> bool:
    """NumPy returns scalars (not 0-d arrays) from ops on these."""
    if isinstance(x, Tracer):
        return x._scalar or x.ndim == 0
    return np.ndim(x) == 0


def _with_location(exc: Exception, opname: str, loc: SourceLoc | None) -> Exception:
    """``exc`` with the op and the user's line in its message, of its class or,
    where that is not made from a message (NumPy's UFuncTypeError: from a
    ufunc and dtypes), of its nearest built-in base class (TypeError)."""
    message = f"{exc} (in {opname}){at(loc)}"
    try:
        return type(exc)(message)
    except Exception:
        builtin = next(c for c in type(exc).__mro__ if c.__module__ == "builtins")
        return builtin(message)


def emit(op: ops.Op, inputs: Sequence[object], attrs: dict | None = None,
         scalar: bool | None = None, regions=()) -> Tracer:
    """Record ``op(inputs)`` and return the result as a new Tracer.

    ``scalar`` says whether a 0-d result is a NumPy scalar (default: yes).
    """
    return emit_multi(op, inputs, attrs, scalar, regions)[0]


def emit_multi(op: ops.Op, inputs: Sequence[object], attrs: dict | None = None,
               scalar: bool | None = None, regions=()) -> list[Tracer]:
    ctx = current()
    loc = user_location()
    values = [to_value(x) for x in inputs]
    try:
        node = ctx.builder.emit(op, values, attrs or {}, regions, loc=loc)
    except (JitaicError, ValueError, TypeError, IndexError) as exc:
        raise _with_location(exc, op.name, loc) from None
    return [new_tracer(v, scalar) for v in node.outputs]


def new_tracer(value: Value, scalar: bool | None = None, param_index=None,
               c_contiguous: bool = True) -> Tracer:
    scalar = value.type.ndim == 0 if scalar is None else scalar
    depth = current().depth if is_tracing() else 0
    return Tracer(Buffer(value, param_index=param_index, c_contiguous=c_contiguous,
                         depth=depth), scalar=scalar)
