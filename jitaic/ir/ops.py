"""THE op table: what each op is, defined once.

Each op has a name, traits, a shape/dtype rule (``infer``) and a NumPy
reference implementation (``reference``). Other concerns (lowering,
simplification, autodiff) keep their own registries keyed by these Op objects.

Dtype rules are NumPy's own: ufunc ops ask ``ufunc.resolve_dtypes`` (NEP 50
weak Python scalars included); other ops ask NumPy's reference on tiny example
values. Shapes broadcast with ``np.broadcast_shapes``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from jitaic.errors import ShapeError, UnsupportedError
from jitaic.ir.types import (
    SUPPORTED_DTYPES,
    SUPPORTED_TEXT,
    TensorType,
    example_operand,
    example_value,
)

# Traits are plain strings collected in sets, so rules can match a category.
ELEMENTWISE = "elementwise"
REDUCTION = "reduction"
COMMUTATIVE = "commutative"
# the result may share its first input's memory (a view, not a copy): writes
# to either show in the other, so stores and buffer reuse must know
VIEW = "view"
CONSTRUCTOR = "constructor"
EFFECTFUL = "effectful"  # never CSE'd or removed
# raises on some run-time values (an index out of bounds), as NumPy does even
# when the result goes unused: not removed at the top level of a function
# (passes/cleanup.py says why not in bodies), but CSE'd (same inputs, same error)
MAY_RAISE = "may_raise"
ALLOCATES = "allocates"  # a new buffer that later ops write in place: never CSE'd
HAS_REGION = "has_region"
CONTROL_FLOW = "control_flow"

InferRule = Callable[[Sequence[TensorType], Mapping[str, object], tuple], list[TensorType]]


@dataclass(frozen=True, eq=False)
class Op:
    name: str
    infer: InferRule
    reference: Callable[..., object]
    traits: frozenset[str] = frozenset()
    ufunc: np.ufunc | None = None  # the ufunc an elementwise op computes
    # Reductions: the binary ufunc they fold with, and its identity (the
    # result over no elements, and the fill for masked-out ones); None where
    # the ufunc has none (max, min), which makes empty reductions an error.
    combine: np.ufunc | None = None
    identity: object = None
    # Computes NumPy's values on complex operands too (its lowering, its
    # reference and the tracer's handlers do); any other op refuses them.
    complex: bool = False

    def __repr__(self) -> str:
        return f"<op {self.name}>"

    def check_complex(self, types: Sequence[TensorType]) -> None:
        """Refuse complex operands or results where the op does not compute them."""
        if not self.complex and any(t.dtype.kind == "c" for t in types):
            name = self.ufunc.__name__ if self.ufunc is not None else self.name
            raise UnsupportedError(f"{name} of complex values is not supported yet")


OPS: dict[str, Op] = {}


def _register(op: Op) -> Op:
    if op.name in OPS:
        raise ValueError(f"op {op.name!r} registered twice")
    OPS[op.name] = op
    return op


def define(name: str, infer: InferRule, reference, traits=(), ufunc=None, **facts) -> Op:
    return _register(Op(name, infer, reference, frozenset(traits), ufunc, **facts))


def registrar(table: dict, what: str) -> Callable:
    """A decorator factory filling one concern's op-keyed table (lowering rules,
    VJP rules, ...): ``@rule(op1, op2)``; registering an op twice is an error."""

    def rule(*op_list: Op) -> Callable:
        def register(fn):
            for op in op_list:
                if op in table:
                    raise ValueError(f"{what} for {op.name} registered twice")
                table[op] = fn
            return fn

        return register

    return rule


# ---------------------------------------------------------------- shape helpers

def broadcast_shapes(*shapes: tuple[int | None, ...]) -> tuple[int | None, ...]:
    """NumPy's broadcasting; a run-time extent (None) meets n > 1 as n and 1 as
    itself (the lowering checks at run time that it equals what it meets)."""
    try:
        if all(None not in s for s in shapes):
            return tuple(np.broadcast_shapes(*shapes))
        ndim = max(len(s) for s in shapes)
        padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
        return tuple(_broadcast_dim(column) for column in zip(*padded, strict=True))
    except ValueError:
        listed = " ".join(str(tuple(s)) for s in shapes)
        raise ShapeError(
            f"operands could not be broadcast together with shapes {listed}"
        ) from None


def _broadcast_dim(dims: tuple[int | None, ...]) -> int | None:
    static = {d for d in dims if d is not None and d != 1}
    if len(static) > 1:
        raise ValueError("mismatch")
    if static:
        return static.pop()
    return None if None in dims else 1


def memory_root(value):
    """The value whose buffer ``value`` views (itself when it is no view)."""
    while value.producer is not None and VIEW in value.producer.op.traits:
        value = value.producer.inputs[0]
    return value


def checked_when_run(*shapes: tuple[int | None, ...]) -> bool:
    """Whether broadcasting operands of these shapes (distinct values) is
    checked when it runs, and may raise there: a run-time extent meets an
    extent other than 1 (a static n, or another run-time extent)."""
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    return any(None in column and sum(d != 1 for d in column) > 1
               for column in zip(*padded, strict=True))


def fits(v: tuple[int | None, ...], target: tuple[int | None, ...],
         checked_when_run: bool = False) -> bool:
    """Whether an array of shape ``v`` broadcasts into ``target`` (assignment).
    With ``checked_when_run``, a run-time extent of the target takes any
    static extent of ``v``: the store checks that they agree when it runs."""
    try:
        out = broadcast_shapes(v, target)
    except ShapeError:
        return False
    return len(v) <= len(target) and all(
        o == t or (checked_when_run and t is None) for o, t in zip(out, target, strict=True))


def check_static(t: TensorType, what: str, where: str = "") -> None:
    """Ops that need every extent at compile time reject run-time extents."""
    if not t.static:
        raise UnsupportedError(f"{what} of an array whose length is only known at run "
                               f"time ({t}: a slice like x[:i] with a traced bound) is "
                               f"not supported{where}")


def normalize_axes(axes, ndim: int) -> tuple[int, ...]:
    """Axis None/int/tuple -> sorted tuple of non-negative axes, NumPy's errors."""
    if axes is None:
        return tuple(range(ndim))
    if isinstance(axes, (int, np.integer)):
        axes = (axes,)
    out = []
    for a in axes:
        a = int(a)
        if a not in (0, -1) if ndim == 0 else not -ndim <= a < ndim:
            raise np.exceptions.AxisError(a, ndim)
        out.append(a % ndim if ndim else 0)
    if len(set(out)) != len(out):
        raise ValueError("duplicate value in 'axis'")
    return tuple(sorted(out))


def _check_dtype(dtype: np.dtype, opname: str) -> np.dtype:
    if np.dtype(dtype) not in SUPPORTED_DTYPES:
        raise UnsupportedError(
            f"{opname} would produce dtype {np.dtype(dtype)}, which jitaic does not "
            f"support (supported: {SUPPORTED_TEXT})"
        )
    return np.dtype(dtype)


# ---------------------------------------------------------------- ufunc ops

def ufunc_loop_dtypes(ufunc: np.ufunc, in_types: Sequence[TensorType]) -> tuple:
    """NumPy's (input..., output) loop dtypes for these operand types."""
    operands = [example_operand(t) for t in in_types]
    if all(t.weak for t in in_types):  # Python scalars only: default dtypes
        operands = [t.dtype for t in in_types]
    return ufunc.resolve_dtypes((*operands, None))


def _ufunc_infer(ufunc: np.ufunc) -> InferRule:
    def infer(in_types, attrs, regions):
        shape = broadcast_shapes(*(t.shape for t in in_types))
        dtype = _check_dtype(ufunc_loop_dtypes(ufunc, in_types)[-1], ufunc.__name__)
        weak = all(t.weak for t in in_types)
        return [TensorType(shape, dtype, weak)]

    return infer


def elementwise(name: str, ufunc: np.ufunc, *traits: str, complex: bool = False) -> Op:
    """An op that is a NumPy ufunc: its rules are the ufunc's own."""
    return define(name, _ufunc_infer(ufunc), ufunc, (ELEMENTWISE, *traits), ufunc,
                  complex=complex)


unary = binary = elementwise


# Unary elementwise: math
negative = unary("negative", np.negative, complex=True)
positive = unary("positive", np.positive, complex=True)
absolute = unary("absolute", np.absolute, complex=True)
exp = unary("exp", np.exp, complex=True)
exp2 = unary("exp2", np.exp2)
expm1 = unary("expm1", np.expm1, complex=True)
log = unary("log", np.log, complex=True)
log2 = unary("log2", np.log2, complex=True)
log10 = unary("log10", np.log10, complex=True)
log1p = unary("log1p", np.log1p, complex=True)
sqrt = unary("sqrt", np.sqrt, complex=True)
cbrt = unary("cbrt", np.cbrt)
square = unary("square", np.square, complex=True)
reciprocal = unary("reciprocal", np.reciprocal, complex=True)
sin = unary("sin", np.sin, complex=True)
cos = unary("cos", np.cos, complex=True)
tan = unary("tan", np.tan, complex=True)
arcsin = unary("arcsin", np.arcsin)
arccos = unary("arccos", np.arccos)
arctan = unary("arctan", np.arctan)
sinh = unary("sinh", np.sinh, complex=True)
cosh = unary("cosh", np.cosh, complex=True)
tanh = unary("tanh", np.tanh, complex=True)
arcsinh = unary("arcsinh", np.arcsinh)
arccosh = unary("arccosh", np.arccosh)
arctanh = unary("arctanh", np.arctanh)
deg2rad = unary("deg2rad", np.deg2rad)
rad2deg = unary("rad2deg", np.rad2deg)
fabs = unary("fabs", np.fabs)
# Unary elementwise: rounding, sign and predicates
floor = unary("floor", np.floor)
ceil = unary("ceil", np.ceil)
trunc = unary("trunc", np.trunc)
rint = unary("rint", np.rint)
sign = unary("sign", np.sign, complex=True)
isnan = unary("isnan", np.isnan, complex=True)
isinf = unary("isinf", np.isinf, complex=True)
isfinite = unary("isfinite", np.isfinite, complex=True)
signbit = unary("signbit", np.signbit)
logical_not = unary("logical_not", np.logical_not, complex=True)
invert = unary("invert", np.invert)

# Binary elementwise
add = binary("add", np.add, COMMUTATIVE, complex=True)
subtract = binary("subtract", np.subtract, complex=True)
multiply = binary("multiply", np.multiply, COMMUTATIVE, complex=True)
true_divide = binary("true_divide", np.true_divide, complex=True)
floor_divide = binary("floor_divide", np.floor_divide)
mod = binary("mod", np.remainder)
power = binary("power", np.power, complex=True)
maximum = binary("maximum", np.maximum, COMMUTATIVE, complex=True)
minimum = binary("minimum", np.minimum, COMMUTATIVE, complex=True)
fmax = binary("fmax", np.fmax, COMMUTATIVE, complex=True)
fmin = binary("fmin", np.fmin, COMMUTATIVE, complex=True)
arctan2 = binary("arctan2", np.arctan2)
hypot = binary("hypot", np.hypot, COMMUTATIVE)
copysign = binary("copysign", np.copysign)
equal = binary("equal", np.equal, COMMUTATIVE, complex=True)
not_equal = binary("not_equal", np.not_equal, COMMUTATIVE, complex=True)
less = binary("less", np.less, complex=True)
less_equal = binary("less_equal", np.less_equal, complex=True)
greater = binary("greater", np.greater, complex=True)
greater_equal = binary("greater_equal", np.greater_equal, complex=True)
logical_and = binary("logical_and", np.logical_and, COMMUTATIVE, complex=True)
logical_or = binary("logical_or", np.logical_or, COMMUTATIVE, complex=True)
logical_xor = binary("logical_xor", np.logical_xor, COMMUTATIVE, complex=True)
bitwise_and = binary("bitwise_and", np.bitwise_and, COMMUTATIVE)
bitwise_or = binary("bitwise_or", np.bitwise_or, COMMUTATIVE)
bitwise_xor = binary("bitwise_xor", np.bitwise_xor, COMMUTATIVE)
left_shift = binary("left_shift", np.left_shift)
conjugate = unary("conjugate", np.conjugate, complex=True)


def _part_infer(in_types, attrs, regions):
    (x,) = in_types
    part = np.real(np.ones((), x.dtype)).dtype  # complex64 -> float32; others stay
    return [TensorType(x.shape, part, x.weak)]


# The real and imaginary parts of complex values (of others: the value, and 0).
real = define("real", _part_infer, lambda x: np.array(np.real(x)), (ELEMENTWISE,),
              complex=True)
imag = define("imag", _part_infer, lambda x: np.array(np.imag(x)), (ELEMENTWISE,),
              complex=True)


def _make_complex_infer(in_types, attrs, regions):
    re, im = in_types
    if re.dtype != im.dtype or re.dtype not in (np.float32, np.float64):
        raise TypeError(f"make_complex takes float32 or float64 parts of one dtype, got "
                        f"{re.dtype} and {im.dtype}")
    dtype = np.dtype(np.complex64 if re.dtype == np.float32 else np.complex128)
    return [TensorType(broadcast_shapes(re.shape, im.shape), dtype, re.weak and im.weak)]


def _make_complex_reference(re, im):
    out = np.empty(np.broadcast_shapes(np.shape(re), np.shape(im)),
                   np.complex64 if np.asarray(re).dtype == np.float32 else np.complex128)
    out.real, out.imag = re, im
    return out


# A complex value from its parts (np.round of complex values rounds each);
# not re + 1j * im, which is NaN where im is infinite.
make_complex = define("make_complex", _make_complex_infer, _make_complex_reference,
                      (ELEMENTWISE,), complex=True)
right_shift = binary("right_shift", np.right_shift)

UFUNC_OPS: dict[np.ufunc, Op] = {op.ufunc: op for op in OPS.values() if op.ufunc}
# ufuncs that are other objects with the same loops as an op's ufunc
UFUNC_ALIASES = {np.radians: deg2rad, np.degrees: rad2deg}
UFUNC_OPS.update(UFUNC_ALIASES)


def _where_infer(in_types, attrs, regions):
    cond, a, b = in_types
    shape = broadcast_shapes(cond.shape, a.shape, b.shape)
    dtype = np.where(True, example_value(a), example_value(b)).dtype
    return [TensorType(shape, _check_dtype(dtype, "where"), a.weak and b.weak)]


where = define("where", _where_infer, np.where, (ELEMENTWISE,), complex=True)


def _astype_infer(in_types, attrs, regions):
    (x,) = in_types
    return [TensorType(x.shape, _check_dtype(attrs["dtype"], "astype"))]


astype = define("astype", _astype_infer, lambda x, dtype: np.asarray(x).astype(dtype),
                (ELEMENTWISE,), complex=True)

# ---------------------------------------------------------------- reductions

def _reduced_shape(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _reduction(name: str, np_fn, combine: np.ufunc, identity: object) -> Op:
    def reference(x, axes, keepdims):
        return np.asarray(np_fn(x, axis=axes, keepdims=keepdims))

    def infer(in_types, attrs, regions):
        (x,) = in_types
        axes = attrs["axes"]
        if identity is None and any(x.shape[a] == 0 for a in axes):
            raise ValueError(empty_reduction_message(op))
        dtype = reference(example_value(x.with_shape(x.shape)), axes, False).dtype
        shape = _reduced_shape(x.shape, axes, attrs["keepdims"])
        return [TensorType(shape, _check_dtype(dtype, name))]

    op = define(name, infer, reference, (REDUCTION,), combine=combine, identity=identity,
                complex=True)
    return op


def empty_reduction_message(op: Op) -> str:
    """NumPy's error for a reduction without identity over no elements."""
    return (f"zero-size array to reduction operation {op.combine.__name__} "
            f"which has no identity")


reduce_sum = _reduction("reduce_sum", np.sum, np.add, 0)
reduce_prod = _reduction("reduce_prod", np.prod, np.multiply, 1)
reduce_max = _reduction("reduce_max", np.max, np.maximum, None)
reduce_min = _reduction("reduce_min", np.min, np.minimum, None)
reduce_any = _reduction("reduce_any", np.any, np.logical_or, False)
reduce_all = _reduction("reduce_all", np.all, np.logical_and, True)
# ufunc.reduce's op: np.add.reduce(x, axis) is reduce_sum
REDUCE_OPS: dict[np.ufunc, Op] = {
    op.combine: op for op in (reduce_sum, reduce_prod, reduce_max, reduce_min,
                              reduce_any, reduce_all)}


def _arg_reduction(name: str, np_fn) -> Op:
    """argmax/argmin over one axis, or over the flattened array (axis None)."""

    def reference(x, axis, keepdims):
        return np.asarray(np_fn(x, axis=axis, keepdims=keepdims))

    def infer(in_types, attrs, regions):
        (x,) = in_types
        check_static(x, f"np.{name}")
        axis = attrs["axis"]
        size = x.size if axis is None else x.shape[axis]
        if size == 0:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        if axis is None:
            shape = (1,) * x.ndim if attrs["keepdims"] else ()
        else:
            shape = _reduced_shape(x.shape, (axis,), attrs["keepdims"])
        return [TensorType(shape, np.dtype(np.intp))]

    return define(name, infer, reference, (REDUCTION,), complex=True)


argmax = _arg_reduction("argmax", np.argmax)
argmin = _arg_reduction("argmin", np.argmin)


def _cumulative(name: str, np_fn) -> Op:
    """cumsum/cumprod along one axis (the tracer flattens for axis None); the
    dtype is NumPy's (small integers and bools accumulate in the platform int)."""

    def reference(x, axis):
        return np.asarray(np_fn(x, axis=axis))

    def infer(in_types, attrs, regions):
        (x,) = in_types
        check_static(x, f"np.{name}")
        dtype = reference(example_value(x), attrs["axis"]).dtype
        return [TensorType(x.shape, _check_dtype(dtype, name))]

    return define(name, infer, reference, complex=name in ("cumsum", "cumprod"))


cumsum = _cumulative("cumsum", np.cumsum)
cumprod = _cumulative("cumprod", np.cumprod)
# np.maximum.accumulate / np.minimum.accumulate: the running max/min (NaN
# propagates from where it appears), in the input's dtype.
cummax = _cumulative("cummax", np.maximum.accumulate)
cummin = _cumulative("cummin", np.minimum.accumulate)


def _argsort_reference(x, axis):
    return np.argsort(x, axis=axis, kind="stable")


def _argsort_infer(in_types, attrs, regions):
    (x,) = in_types
    check_static(x, "np.argsort")
    return [TensorType(x.shape, np.dtype(np.intp))]


def _select_infer(in_types, attrs, regions):
    (x,) = in_types
    check_static(x, "an order statistic (np.median, np.quantile)")
    ks = attrs["ks"]
    ordered = bool(ks) and list(ks) == sorted(set(ks))
    if x.ndim < 1 or not ordered or not 0 <= ks[0] <= ks[-1] < x.shape[-1]:
        raise ValueError(f"order statistics {ks} of lanes of length {x.shape[-1:]}")
    return [TensorType(x.shape[:-1] + (len(ks),), x.dtype)]


def _select_reference(x, ks):
    return np.take(np.partition(x, ks, axis=-1), ks, axis=-1)


# The ks-th smallest elements (ks sorted, distinct) of each lane along the
# last axis, NaN after every number: np.median / np.quantile select without
# sorting (a partition per lane, O(n)).
select = define("select", _select_infer, _select_reference)

# Stable: equal elements keep their order (NumPy's kind="stable"; its default
# introsort may order ties, and -0.0 against 0.0, differently). NaN sorts last.
argsort = define("argsort", _argsort_infer, _argsort_reference, complex=True)

def _searchsorted_infer(in_types, attrs, regions):
    a, v = in_types
    check_static(a, "np.searchsorted")
    check_static(v, "np.searchsorted")
    if a.ndim != 1:
        raise ValueError("object too deep for desired array")
    return [TensorType(v.shape, np.dtype(np.intp))]


# Insertion points of v's elements in a sorted 1-D a (same dtype: the tracer
# casts both), by binary search in NumPy's sort order (NaN after everything).
searchsorted = define(
    "searchsorted", _searchsorted_infer,
    lambda a, v, side: np.asarray(np.searchsorted(a, v, side=side), dtype=np.intp))

# ---------------------------------------------------------------- linear algebra


def matmul_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """np.matmul's shape rule, with NumPy's error for mismatched core dims."""
    if len(a) == 0 or len(b) == 0:
        raise ValueError("matmul: Input operand does not have enough dimensions")
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    if a2[-1] != b2[-2] and None not in (a2[-1], b2[-2]):  # run-time: checked when run
        raise ShapeError(
            f"matmul: Input operand 1 has a mismatch in its core dimension 0, with "
            f"gufunc signature (n?,k),(k,m?)->(n?,m?) (size {b2[-2]} is different "
            f"from {a2[-1]}) for shapes {a} and {b}"
        )
    batch = broadcast_shapes(a2[:-2], b2[:-2])
    core = (() if len(a) == 1 else (a2[-2],)) + (() if len(b) == 1 else (b2[-1],))
    return tuple(batch) + core


def _matmul_infer(in_types, attrs, regions):
    a, b = in_types
    dtype = np.matmul(example_value(a.with_shape((1,) * max(a.ndim, 1))),
                      example_value(b.with_shape((1,) * max(b.ndim, 1)))).dtype
    return [TensorType(matmul_shape(a.shape, b.shape), _check_dtype(dtype, "matmul"))]


matmul = define("matmul", _matmul_infer, np.matmul, complex=True)


def check_square_stack(t: TensorType, name: str) -> None:
    """NumPy's LinAlgErrors for an operand that is not a stack of square matrices."""
    check_static(t, name)
    if t.ndim < 2:
        raise np.linalg.LinAlgError(f"{t.ndim}-dimensional array given. Array must be at "
                                    f"least two-dimensional")
    if t.shape[-1] != t.shape[-2]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")
    if t.dtype.kind not in "fc":  # the tracer converts integers first, as NumPy does
        raise TypeError(f"{name} of {t.dtype}: jitaic expects a float or complex array here")


def _linalg(name: str, out_shape: Callable, reference, complex: bool = True) -> Op:
    """A LAPACK-backed op on stacks of square float or complex matrices (the
    last two axes); ``out_shape(a_shape, *other_shapes)``. The dtype stays
    the input's."""

    def infer(in_types, attrs, regions):
        a, *rest = in_types
        check_square_stack(a, f"np.linalg.{name}")
        for t in rest:
            check_static(t, f"np.linalg.{name}")
        return [TensorType(out_shape(a.shape, *(t.shape for t in rest)), a.dtype)]

    return define(name, infer, reference, complex=complex)


def _solve_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    vectors = len(b) == len(a) - 1  # the tracer broadcast the stacks
    if (b if vectors else b[:-1]) != a[:-1] or len(b) not in (len(a) - 1, len(a)):
        raise ShapeError(f"np.linalg.solve: shapes {a} and {b} do not match")
    return b


def _solve_reference(a, b):
    if b.ndim == a.ndim - 1:  # vectors (NumPy 2 reads a 2-D b as matrices)
        return np.linalg.solve(a, b[..., None])[..., 0]
    return np.linalg.solve(a, b)


def _slogdet_reference(a):
    return np.stack(np.linalg.slogdet(a), axis=-1)


# b of solve is a's stack of vectors (b.shape == a.shape[:-1]) or of matrices
# (b.shape[:-2] == a.shape[:-2]); slogdet packs (sign, log|det|) in a last axis
# of 2, so it is one output (VJP rules have one cotangent per node).
solve = _linalg("solve", _solve_shape, _solve_reference)
inv = _linalg("inv", lambda a: a, np.linalg.inv)
det = _linalg("det", lambda a: a[:-2], np.linalg.det)
# (sign, log|det|) packed in one array of the input's dtype: real input only
slogdet = _linalg("slogdet", lambda a: a[:-2] + (2,), _slogdet_reference, complex=False)
cholesky = _linalg("cholesky", lambda a: a, np.linalg.cholesky)

# ---------------------------------------------------------------- shape ops


def _reshape_infer(in_types, attrs, regions):
    (x,) = in_types
    shape = attrs["shape"]
    if not x.static:
        moved = attrs.get("from_axes") or ()
        taken = [a for a in moved if a is not None]
        if len(moved) != len(shape) or taken != [k for k, d in enumerate(x.shape) if d != 1] \
                or any(d != (1 if a is None else x.shape[a]) for a, d in zip(moved, shape)):
            check_static(x, "a reshape other than adding or removing length-1 axes")
        return [x.with_shape(shape)]
    if int(np.prod(shape, dtype=np.int64)) != x.size:
        raise ShapeError(f"cannot reshape array of size {x.size} into shape {shape}")
    return [x.with_shape(shape)]


def _reshape_reference(x, shape, from_axes=None):
    if from_axes is not None:  # length-1 axes come and go around run-time extents
        shape = tuple(1 if a is None else np.shape(x)[a] for a in from_axes)
    return np.reshape(x, shape)


# A reshape of an array with run-time extents only adds or removes length-1
# axes; "from_axes" says which input axis each output axis is (None: a new 1).
reshape = define("reshape", _reshape_infer, _reshape_reference, (VIEW,), complex=True)


def _transpose_infer(in_types, attrs, regions):
    (x,) = in_types
    perm = attrs["perm"]
    if sorted(perm) != list(range(x.ndim)):
        raise ValueError(f"axes {perm} don't match array of {x.ndim} dimensions")
    return [x.with_shape(tuple(x.shape[p] for p in perm))]


transpose = define("transpose", _transpose_infer,
                   lambda x, perm: np.transpose(x, perm), (VIEW,),
                   complex=True)


def _broadcast_to_infer(in_types, attrs, regions):
    (x,) = in_types
    shape = attrs["shape"]
    check_static(x, "np.broadcast_to")
    if broadcast_shapes(x.shape, shape) != tuple(shape) or x.ndim > len(shape):
        raise ShapeError(f"cannot broadcast an array of shape {x.shape} "
                         f"to shape {tuple(shape)}")
    return [x.with_shape(shape)]


broadcast_to = define("broadcast_to", _broadcast_to_infer,
                      lambda x, shape: np.broadcast_to(x, shape), (VIEW,),
                      complex=True)


def _broadcast_like_infer(in_types, attrs, regions):
    x, like = in_types
    return [TensorType(broadcast_shapes(x.shape, like.shape), x.dtype)]


# x broadcast against the shape of ``like`` (whose values are not read): the
# gradient of a reduction over an array whose length is known at run time
# only, where broadcast_to would need a static target shape.
broadcast_like = define(
    "broadcast_like", _broadcast_like_infer,
    lambda x, like: np.broadcast_to(x, np.broadcast_shapes(np.shape(x), np.shape(like))).copy(),
    (ELEMENTWISE,),
                        complex=True)


def slice_shape(shape: tuple[int, ...], index: tuple) -> tuple[int | None, ...]:
    """Shape after a normalized basic index: ints (and DYNAMIC) drop a dim,
    triples slice one; a dynamic slice keeps its length, a RANGE's length is
    known at run time only."""
    out = []
    for dim, entry in zip(shape, index, strict=False):
        if is_range(entry):
            out.append(None)
        elif is_dynamic_slice(entry):
            out.append(entry[1])
        elif isinstance(entry, tuple):
            out.append(len(range(dim)[slice(*entry)]))
    out.extend(shape[len(index):])
    return tuple(out)


def to_numpy_index(index: tuple) -> tuple:
    return tuple(slice(*e) if isinstance(e, tuple) else e for e in index)


def _getitem_infer(in_types, attrs, regions):
    (x,) = in_types
    return [x.with_shape(slice_shape(x.shape, attrs["index"]))]


getitem = define("getitem", _getitem_infer,
                 lambda x, index: np.asarray(x[to_numpy_index(index)]), (VIEW,),
                 complex=True)


def _setitem_infer(in_types, attrs, regions):
    x, v = in_types
    target = slice_shape(x.shape, attrs["index"])
    if not fits(v.shape, target, checked_when_run=True):  # _store_loop checks
        raise ShapeError(f"could not broadcast input array from shape {v.shape} "
                         f"into shape {target}")
    return [x.with_shape(x.shape)]


def _setitem_reference(x, v, index):
    out = np.array(x, copy=True)
    out[to_numpy_index(index)] = v
    return out


setitem = define("setitem", _setitem_infer, _setitem_reference, complex=True)


# ---------------------------------------------------------------- advanced indexing
# Integer-array indexing, NumPy's rules: the index arrays (one per entry of
# "axes", ascending axes of x) broadcast to one shape B, which replaces those
# axes in place when they are adjacent and goes first otherwise ("front").
# Negative indices count from the end; out-of-range ones raise IndexError.


def gather_shape(x_shape: tuple, index_shape: tuple, axes: tuple, front: bool) -> tuple:
    rest = [d for i, d in enumerate(x_shape) if i not in axes]
    if front:
        return (*index_shape, *rest)
    return (*x_shape[:axes[0]], *index_shape, *x_shape[axes[-1] + 1:])


def _index_shape(index_types) -> tuple:
    if any(t.dtype.kind not in "iu" for t in index_types):
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    try:
        return broadcast_shapes(*(t.shape for t in index_types))
    except ShapeError:
        shapes = " ".join(str(t.shape) for t in index_types)
        raise IndexError(f"shape mismatch: indexing arrays could not be broadcast "
                         f"together with shapes {shapes}") from None


def numpy_key(ndim: int, indices, axes: tuple) -> tuple:
    key = [slice(None)] * ndim
    for axis, index in zip(axes, indices, strict=True):
        key[axis] = np.asarray(index)
    return tuple(key)


def _gather_infer(in_types, attrs, regions):
    x, *indices = in_types
    shape = gather_shape(x.shape, _index_shape(indices), attrs["axes"], attrs["front"])
    return [TensorType(shape, x.dtype)]


gather = define("gather", _gather_infer,
                lambda x, *indices, axes, front: np.asarray(x[numpy_key(x.ndim, indices,
                                                                         axes)]).copy(),
                (MAY_RAISE,),
                complex=True)


def _scatter_infer(in_types, attrs, regions):
    x, v, *indices = in_types
    target = gather_shape(x.shape, _index_shape(indices), attrs["axes"], attrs["front"])
    if v.dtype != x.dtype or not fits(v.shape, target):
        raise ShapeError(f"cannot scatter {v} into the {target} elements of {x}")
    return [x.with_shape(x.shape)]


def _scatter_reference(x, v, *indices, axes, front, accumulate):
    out = np.array(x, copy=True)
    key = numpy_key(x.ndim, indices, axes)
    if accumulate:  # np.add.at: repeated indices add up
        np.add.at(out, key, v)
    else:
        out[key] = v
    return out


# x[idx] = v (accumulate=False; repeated indices: the last write wins) and
# np.add.at(x, idx, v) (accumulate=True).
scatter = define("scatter", _scatter_infer, _scatter_reference, (MAY_RAISE,), complex=True)


# Boolean-mask indexing with a traced mask: x[mask] has one row per true entry
# of the mask, a length known at run time only; x[mask] = v fills those rows
# from v in order (or broadcasts v over them).


def _check_mask(x: TensorType, mask: TensorType) -> tuple:
    prefix = x.shape[:mask.ndim]
    if mask.dtype != np.bool_ or mask.ndim == 0 or mask.ndim > x.ndim or any(
            a != b and None not in (a, b) for a, b in zip(mask.shape, prefix, strict=True)):
        raise IndexError(f"boolean index of shape {mask.shape} does not match the indexed "
                         f"array's shape {x.shape}")
    return x.shape[mask.ndim:]


def _compress_infer(in_types, attrs, regions):
    x, mask = in_types
    return [TensorType((None, *_check_mask(x, mask)), x.dtype)]


compress = define("compress", _compress_infer,
                  lambda x, mask: np.asarray(x)[np.asarray(mask)].copy(), (MAY_RAISE,),
                  complex=True)


def _mask_scatter_infer(in_types, attrs, regions):
    x, v, mask = in_types
    rest = _check_mask(x, mask)
    if v.dtype != x.dtype or v.ndim > len(rest) + 1 or (
            v.ndim and not fits(v.shape[1:] if v.ndim > len(rest) else v.shape, rest)):
        raise ShapeError(f"cannot assign {v} to the rows {rest} of {x} where the mask is true")
    return [x]


def _mask_scatter_reference(x, v, mask):
    out = np.array(x, copy=True)
    out[np.asarray(mask)] = v
    return out


mask_scatter = define("mask_scatter", _mask_scatter_infer, _mask_scatter_reference,
                      (MAY_RAISE,),
                      complex=True)


def _concatenate_infer(in_types, attrs, regions):
    axis = attrs["axis"]
    for t in in_types:
        check_static(t, "np.concatenate")
    first = in_types[0]
    for t in in_types[1:]:
        if t.ndim != first.ndim or any(
            a != b for i, (a, b) in enumerate(zip(t.shape, first.shape)) if i != axis
        ):
            raise ShapeError(
                f"all the input array dimensions except for the concatenation axis "
                f"must match exactly, but got shapes "
                f"{', '.join(str(s.shape) for s in in_types)}")
    shape = list(first.shape)
    shape[axis] = sum(t.shape[axis] for t in in_types)
    dtype = np.result_type(*(example_operand(t) for t in in_types))
    return [TensorType(tuple(shape), _check_dtype(dtype, "concatenate"))]


concatenate = define("concatenate", _concatenate_infer,
                     lambda *xs, axis: np.concatenate(xs, axis=axis),
                     complex=True)


def _dim_size_infer(in_types, attrs, regions):
    (x,) = in_types
    if not 0 <= attrs["axis"] < x.ndim:
        raise np.exceptions.AxisError(attrs["axis"], x.ndim)
    return [TensorType((), np.int64)]


# The run-time extent of one axis (len(x[:i]), the count in np.mean(x[:i])).
dim_size = define("dim_size", _dim_size_infer,
                  lambda x, axis: np.int64(np.shape(x)[axis]),
                  complex=True)


# A run-time check: raises ``error`` (a builtin exception's name) with
# ``message`` where ``ok`` (a bool scalar) is false, as NumPy raises on some
# values (integers to negative powers, non-finite histogram ranges). Its output
# is ``ok`` itself; being effectful, it runs even when nothing reads that.
CHECK_ERRORS = {"ValueError": ValueError, "IndexError": IndexError,
                "OverflowError": OverflowError, "TypeError": TypeError}


def _check_infer(in_types, attrs, regions):
    (ok,) = in_types
    if ok.ndim or ok.dtype != np.bool_ or attrs["error"] not in CHECK_ERRORS:
        raise ValueError(f"a check takes a bool scalar and one of {sorted(CHECK_ERRORS)}")
    return [ok]


def _check_reference(ok, error, message):
    if not ok:
        raise CHECK_ERRORS[error](message)
    return ok


check = define("check", _check_infer, _check_reference, (EFFECTFUL,), complex=True)


# ---------------------------------------------------------------- constants


def _constant_infer(in_types, attrs, regions):
    value = attrs["value"]
    return [TensorType(value.shape, value.dtype, attrs.get("weak", False))]


constant = define("constant", _constant_infer,
                  lambda value, weak=False: value, (CONSTRUCTOR,),
                  complex=True)


def _full_infer(in_types, attrs, regions):
    return [TensorType(attrs["shape"], _check_dtype(attrs["dtype"], "full"))]


full = define("full", _full_infer,
              lambda shape, dtype, fill: np.full(shape, fill, dtype), (CONSTRUCTOR,),
              complex=True)

# ---------------------------------------------------------------- control flow
# Structured control flow holds its bodies as Regions. The frontends that
# produce these come with the AST frontend; the data structure, printer,
# verifier and interpreter support them now.


def _region_result_types(region) -> list[TensorType]:
    return [v.type for v in region.results]


def _cond_infer(in_types, attrs, regions):
    then_r, else_r = regions
    then_t, else_t = _region_result_types(then_r), _region_result_types(else_r)
    if [(t.shape, t.dtype) for t in then_t] != [(t.shape, t.dtype) for t in else_t]:
        raise ShapeError(f"cond branches disagree: {then_t} vs {else_t}")
    return then_t


def _cond_reference(pred, *operands, regions):
    then_fn, else_fn = regions
    return (then_fn if bool(pred) else else_fn)(*operands)


cond = define("cond", _cond_infer, _cond_reference, (HAS_REGION, CONTROL_FLOW), complex=True)


def _loop_infer(in_types, attrs, regions):
    body = regions[-1]
    return _region_result_types(body)


def _while_reference(*carried, regions):
    cond_fn, body_fn = regions
    while bool(cond_fn(*carried)[0]):
        carried = body_fn(*carried)
    return carried


while_loop = define("while_loop", _loop_infer, _while_reference,
                    (HAS_REGION, CONTROL_FLOW),
                    complex=True)


def _for_reference(start, stop, step, *carried, regions):
    (body_fn,) = regions
    for i in range(int(start), int(stop), int(step)):
        carried = body_fn(np.asarray(i), *carried)
    return carried


for_loop = define("for_loop", _loop_infer, _for_reference, (HAS_REGION, CONTROL_FLOW), complex=True)

# ---------------------------------------------------------------- dynamic indexing
# Basic indexing where some indices are run-time values (a loop index): the
# "index" attribute is a template whose DYNAMIC markers are filled, in order,
# by the extra integer inputs.
# - DYNAMIC: an integer index (x[i]); NumPy's wraparound for negative values.
# - (DYNAMIC, length, step): a slice of static length whose start is a run-time
#   value (x[i, j:j + 3]). The tracer makes one only where the start's range
#   provably leaves room (a for-loop index with static bounds); any other
#   window is a RANGE, which NumPy's rules may shorten.
# - (RANGE, start, stop, step): a slice whose length is known at run time only
#   (x[:i], A[i, j:], y[k:n - k]); start and stop are DYNAMIC, a Python int or
#   None, with Python's slice semantics; the result's dimension is None.

DYNAMIC = "dynamic"
RANGE = "range"


def is_dynamic_slice(entry: object) -> bool:
    return isinstance(entry, tuple) and entry[0] == DYNAMIC


def is_range(entry: object) -> bool:
    return isinstance(entry, tuple) and entry[0] == RANGE


def dynamic_count(index: tuple) -> int:
    """How many run-time inputs fill the template."""
    return sum(1 if e == DYNAMIC or is_dynamic_slice(e) else
               (e[1] == DYNAMIC) + (e[2] == DYNAMIC) if is_range(e) else 0 for e in index)


def slice_span(length: int, step: int) -> int:
    """How far past its start a slice of ``length`` elements reaches."""
    return (length - 1) * step + 1 if length else 0


def _fill(index: tuple, values, shape: tuple[int, ...]) -> tuple:
    it = iter(values)
    out = []
    for dim, e in enumerate(index):
        if e == DYNAMIC:
            out.append(int(next(it)))
        elif is_dynamic_slice(e):
            _, length, step = e
            start = int(next(it))
            if length and (start < 0 or start + slice_span(length, step) > shape[dim]):
                raise IndexError(f"a slice of length {length} starting at {start} runs "
                                 f"outside axis {dim} of size {shape[dim]}")
            out.append((start, start + length * step, step))
        elif is_range(e):
            _, start, stop, step = e
            start = int(next(it)) if start == DYNAMIC else start
            stop = int(next(it)) if stop == DYNAMIC else stop
            out.append((start, stop, step))
        else:
            out.append(e)
    return tuple(out)


def _dyn_getitem_infer(in_types, attrs, regions):
    x, *dyn = in_types
    _check_dynamic(dyn, attrs["index"], x.shape)
    return [x.with_shape(slice_shape(x.shape, attrs["index"]))]


def _check_dynamic(dyn, index, shape) -> None:
    if len(dyn) != dynamic_count(index) or any(t.ndim or t.dtype.kind not in "iu" for t in dyn):
        raise ValueError("dynamic indices must be integer scalars, one per dynamic entry")
    for dim, e in enumerate(index):
        if is_dynamic_slice(e) and (e[2] <= 0 or shape[dim] is None
                                    or slice_span(e[1], e[2]) > shape[dim]):
            raise ValueError(f"dynamic slice {e} does not fit axis {dim} of size "
                             f"{shape[dim]}")


# A dyn_getitem with attr ``bounded`` reads at indices in range by construction
# (a gradient's reads of its tapes, its replay of reads the forward checked):
# no run-time check, and dead code where nothing reads it.
dyn_getitem = define(
    "dyn_getitem", _dyn_getitem_infer,
    lambda x, *dyn, index, bounded=False:
    np.asarray(x[to_numpy_index(_fill(index, dyn, x.shape))]).copy(),
    (VIEW, MAY_RAISE),
                     complex=True)


def _dyn_setitem_infer(in_types, attrs, regions):
    x, v, *dyn = in_types
    _check_dynamic(dyn, attrs["index"], x.shape)
    return _setitem_infer([x, v], attrs, regions)


def _dyn_setitem_reference(x, v, *dyn, index):
    return _setitem_reference(x, v, _fill(index, dyn, np.shape(x)))


dyn_setitem = define("dyn_setitem", _dyn_setitem_infer, _dyn_setitem_reference,
                     (MAY_RAISE,),
                     complex=True)

# The read of the region each store writes (undo logs, cotangents of slices,
# simplification and in-place decisions pair a store with it).
READ_OF_STORE = {setitem: getitem, dyn_setitem: dyn_getitem}
# Stores the lowering may do in place, into their first input's buffer.
STORES = (setitem, dyn_setitem, scatter)

# What one element of these ops costs next to a simple add or multiply (~0.3 ns
# a lane here), measured in vectorised loops (vecmath) or libm calls. The
# parallel threshold weighs a loop's elements by them (a tanh chain of 1e5
# elements is 0.5 ms of work on one core, far above a thread launch), and a
# loop's gradient saves their results rather than computing them again.
ELEMENT_COST = {exp: 6, expm1: 6, log: 8, log1p: 8, tanh: 9, power: 25, sin: 15, cos: 15,
                tan: 20, arcsin: 15, arccos: 15, arctan: 15, arctan2: 20, sinh: 15, cosh: 15,
                arcsinh: 20, arccosh: 20, arctanh: 20, exp2: 15, log2: 15, log10: 15, cbrt: 15}


# ---------------------------------------------------------------- tapes
# A tape is a stack whose length is known only at run time (leading dimension
# None): the gradient of a while loop pushes each iteration's carried values
# in the forward loop and reads them back, in reverse, in the backward loop.
# Pushing writes into the tape's buffer (growing it when full), so every tape
# is a fresh allocation and is threaded linearly through the loop.


def _tape_new_infer(in_types, attrs, regions):
    return [TensorType((None, *attrs["shape"]), _check_dtype(attrs["dtype"], "tape"))]


# "slot" names the tape: compiled code keeps each slot's buffer between calls
# (a tape runs within one call, so the next call starts on the grown buffer
# instead of faulting in fresh pages).
tape_new = define("tape_new", _tape_new_infer,
                  lambda shape, dtype, slot: np.empty((0, *shape), dtype), (ALLOCATES,),
                  complex=True)


def _tape_push_infer(in_types, attrs, regions):
    tape, row, count = in_types
    if tape.shape[1:] != row.shape or tape.dtype != row.dtype or count.ndim or \
            count.dtype != np.int64:
        raise ValueError(f"cannot push {row} at {count} onto tape {tape}")
    return [tape]


def _tape_push_reference(tape, row, count, slot):
    count = int(count)
    if count >= len(tape):  # grow geometrically, as the compiled version does
        tape = np.concatenate([tape, np.empty((len(tape) + 16, *tape.shape[1:]),
                                              tape.dtype)])
    tape[count] = row
    return tape


tape_push = define("tape_push", _tape_push_infer, _tape_push_reference, complex=True)
