"""Algebraic simplification: a table of named rules, each exact under IEEE 754.

Every rule keeps NaN, infinities, signed zeros and rounding exactly as the
original expression; tests check each one against the reference interpreter.
Rules that are NOT exact and therefore absent: ``x + 0 -> x`` (-0.0 + 0.0 is
+0.0), ``x ** 0.5 -> sqrt(x)`` (they differ at -0.0 and -inf),
``log(exp(x)) -> x`` (exp overflows), ``x * 0 -> 0`` (NaN, inf).
"""

from __future__ import annotations

import numpy as np

from jitaic.ir import ops
from jitaic.ir.graph import Graph, Node, Value
from jitaic.passes.rewrite import Rebuilder, Rule, apply_rules

RULES: dict[ops.Op, list[Rule]] = {}
# Rules that need exact use counts: a pass of their own, after CSE and DCE
# (a sweep of RULES substitutes values as it goes, and duplicates are not yet
# merged, so a value's readers are not all known during it).
REASSOCIATION_RULES: dict[ops.Op, list[Rule]] = {}


def rule(*op_list: ops.Op, table: dict[ops.Op, list[Rule]] = RULES):
    def register(fn):
        for op in op_list:
            table.setdefault(op, []).append(Rule(fn.__name__, fn))
        return fn

    return register


def _constant(v: Value) -> np.ndarray | None:
    """The values of a constant, a filled array, or a broadcast of either (a
    gradient's seed), else None."""
    node = v.producer
    while node is not None and node.op is ops.broadcast_to:
        node = node.inputs[0].producer
    if node is None:
        return None
    if node.op is ops.full:
        return np.asarray(node.attrs["fill"], node.output.dtype)
    return node.attrs["value"] if node.op is ops.constant else None


def _scalar(v: Value) -> float | None:
    """The value of a constant whose elements are all equal, else None."""
    value = _constant(v)
    if value is None or value.size == 0 or np.any(value != value.flat[0]):
        return None
    return value.flat[0].item()


def _same_type(node: Node, v: Value) -> bool:
    """Replacing the node by ``v`` keeps its exact type (shape and dtype)."""
    out = node.output.type
    return v.type.shape == out.shape and v.type.dtype == out.dtype and v.type.weak == out.weak


def _other(node: Node, value: float) -> Value | None:
    """For ``x op c`` (or ``c op x`` when commutative): x when c == value."""
    a, b = node.inputs
    if _scalar(b) == value and not (isinstance(value, float) and _is_negzero(b)):
        return a
    if ops.COMMUTATIVE in node.op.traits and _scalar(a) == value:
        return b
    return None


def _is_negzero(v: Value) -> bool:
    value = _constant(v)
    return bool(np.signbit(np.real(value)).any() or np.signbit(np.imag(value)).any())


# A complex product or quotient by 1 is not the identity at infinities (the
# cross terms inf * 0 make NaN parts) nor for signed zeros: NumPy computes it.

@rule(ops.multiply)
def multiply_by_one(node: Node, rb: Rebuilder) -> Value | None:
    """x * 1 -> x  (not for complex values)"""
    if node.output.dtype.kind == "c":
        return None
    x = _other(node, 1)
    return x if x is not None and _same_type(node, x) else None


@rule(ops.true_divide)
def divide_by_one(node: Node, rb: Rebuilder) -> Value | None:
    """x / 1 -> x  (not for complex values)"""
    x, c = node.inputs
    if node.output.dtype.kind == "c":
        return None
    return x if _scalar(c) == 1 and _same_type(node, x) else None


@rule(ops.floor_divide)
def floor_divide_by_one(node: Node, rb: Rebuilder) -> Value | None:
    """i // 1 -> i  (integers: a float's floor differs; a loop's iteration
    number from its index)"""
    x, c = node.inputs
    if node.output.dtype.kind not in "iu" or _scalar(c) != 1:
        return None
    return x if _same_type(node, x) else None


@rule(ops.true_divide)
def divide_by_power_of_two(node: Node, rb: Rebuilder) -> Value | None:
    """x / 2**k -> x * 2**-k (both are exact scalings, so results are identical)"""
    x, c = node.inputs
    value = _scalar(c)
    dtype = node.output.dtype
    if not isinstance(value, float | int) or value == 0 or dtype.kind != "f":
        return None
    with np.errstate(all="ignore"):
        divisor, inverse = dtype.type(value), dtype.type(1.0) / dtype.type(value)
    # Both must be exactly representable (subnormal is fine) and finite in the
    # computation dtype; then x / c and x * (1/c) round the same real number.
    if not (np.isfinite(divisor) and np.isfinite(inverse) and inverse != 0
            and float(divisor) == float(value) and float(inverse) * float(divisor) == 1.0):
        return None
    mantissa, _ = np.frexp(abs(value))
    if mantissa != 0.5 or not np.isfinite(1.0 / value):
        return None
    inverse = np.array(1.0 / value, dtype=c.dtype if c.dtype.kind == "f" else np.float64)
    if inverse.dtype != dtype and not c.type.weak:
        return None
    inverse.flags.writeable = False
    k = rb.emit(ops.constant, (), {"value": inverse, "weak": c.type.weak}, loc=node.loc)
    out = rb.emit(ops.multiply, (x, k), loc=node.loc)
    return out if out.type == node.output.type else None


@rule(ops.subtract)
def subtract_zero(node: Node, rb: Rebuilder) -> Value | None:
    """x - 0 -> x  (exact for every x, -0.0 included)"""
    x, c = node.inputs
    if _scalar(c) != 0 or _is_negzero(c):  # -0.0 - (-0.0) is +0.0
        return None
    return x if _same_type(node, x) else None


@rule(ops.power)
def power_small_integer(node: Node, rb: Rebuilder) -> Value | None:
    """x ** 1 -> x;  x ** 2 -> x * x  (one rounding, as pow's is correctly rounded)"""
    x, c = node.inputs
    value = _scalar(c)
    if value == 1 and _same_type(node, x):
        return x
    if value == 2 and node.output.dtype == x.dtype:
        out = rb.emit(ops.multiply, (x, x), loc=node.loc)
        return out if out.type == node.output.type else None
    return None


@rule(ops.setitem, ops.dyn_setitem)
def store_of_own_values(node: Node, rb: Rebuilder) -> Value | None:
    """x[s] = x[s] -> x  (``x[s] -= y`` updates the view in place, then Python
    stores the view back into x: the same values, a copy and a loop per
    statement, dozens in an unrolled factorisation; a run-time index the read
    checks as the store would)"""
    x, v = node.inputs[:2]
    read = v.producer
    if (read is not None and read.op is ops.READ_OF_STORE[node.op] and read.inputs[0] is x
            and ops.same_region(node, read) and _same_type(node, x)):
        return x
    return None


@rule(ops.getitem, ops.dyn_getitem)
def read_of_a_store(node: Node, rb: Rebuilder) -> Value | None:
    """(x[s] = v)[s] -> v, broadcast to the slice's shape (the values just
    stored; v of x's dtype)"""
    store = node.inputs[0].producer
    if (store is None or store.op is not ops.STORE_OF_READ[node.op]
            or not ops.same_region(store, node)):
        return None
    v = store.inputs[1]
    if v.dtype != node.output.dtype or not node.output.type.static:
        return None
    if v.shape != node.output.shape:
        v = rb.emit(ops.broadcast_to, [v], {"shape": node.output.shape}, loc=node.loc)
    return v if v.type == node.output.type else None


@rule(ops.setitem)
def store_over_a_store(node: Node, rb: Rebuilder) -> Value | None:
    """(x[s] = a)[s] = b -> x[s] = b: the second store overwrites all the
    first wrote (when a provably fits: the first store cannot raise; a
    run-time index may be out of range, and the store that raises for it
    stays at the top level, so a dyn_setitem is left alone)"""
    inner = node.inputs[0].producer
    if inner is None or inner.op is not node.op or not ops.same_region(inner, node) \
            or inner.attrs != node.attrs:
        return None
    a, target = inner.inputs[1], ops.slice_shape(inner.inputs[0].shape, inner.attrs["index"])
    if a.type.ndim and not (a.type.static and None not in target and ops.fits(a.shape, target)):
        return None
    return rb.emit(node.op, [inner.inputs[0], *node.inputs[1:]], node.attrs, loc=node.loc)


@rule(ops.setitem, ops.dyn_setitem)
def store_repeated(node: Node, rb: Rebuilder) -> Value | None:
    """(x[s] = v)[s] = v -> x[s] = v: the same values into the same elements
    (v one value, or equal 0-d constants: a gradient clears an element's
    cotangent twice); an index out of range raises at the first store, as
    before"""
    inner = node.inputs[0].producer
    if inner is None or inner.op is not node.op or not ops.same_region(inner, node):
        return None
    a, b = inner.inputs[1], node.inputs[1]
    same = a is b or (a.type.ndim == b.type.ndim == 0 and _same_bits(_constant(a), _constant(b)))
    return inner.output if same and _same_type(node, inner.output) else None


def _same_bits(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    return (a is not None and b is not None and a.dtype == b.dtype
            and a.tobytes() == b.tobytes())


@rule(ops.mask_scatter)
def masked_update(node: Node, rb: Rebuilder) -> Value | None:
    """x[m] = f(x[m], y[m], s) -> where(m, f(x, y, s), x): for f elementwise
    (its ops cannot raise: numba's error model is NumPy's), m of x's shape, y
    of x's shape and s 0-d. One fused pass instead of gathering each operand
    and scattering the result (a masked update in an escape-time loop); f is
    computed at every element and kept where m is true, the same values."""
    x, v, mask = node.inputs
    if mask.shape != x.shape or not x.type.static:
        return None
    full = _on_every_element(v, mask, rb, {})
    if full is None:
        return None
    return rb.emit(ops.where, [mask, full, x], loc=node.loc)


def _on_every_element(v: Value, mask: Value, rb: Rebuilder, done: dict) -> Value | None:
    """``v``, an elementwise function of values gathered by ``mask`` (and of
    0-d values), computed from the values before the gathering: None if it
    is not one."""
    if id(v) in done:
        return done[id(v)]
    node = v.producer
    if v.type.ndim == 0:
        full = v
    elif node is not None and node.op is ops.compress and node.inputs[1] is mask \
            and node.inputs[0].shape == mask.shape:
        full = node.inputs[0]
    elif node is not None and ops.ELEMENTWISE in node.op.traits and len(node.outputs) == 1 \
            and not {ops.MAY_RAISE, ops.EFFECTFUL} & node.op.traits:
        inputs = [_on_every_element(x, mask, rb, done) for x in node.inputs]
        full = None if None in inputs else rb.emit(node.op, inputs, node.attrs, loc=node.loc)
    else:
        full = None
    done[id(v)] = full
    return full


@rule(ops.negative)
def double_negation(node: Node, rb: Rebuilder) -> Value | None:
    """-(-x) -> x"""
    inner = node.inputs[0].producer
    if inner is not None and inner.op is ops.negative and _same_type(node, inner.inputs[0]):
        return inner.inputs[0]
    return None


_SELF_COMPARISON = {ops.equal: True, ops.less_equal: True, ops.greater_equal: True,
                    ops.not_equal: False, ops.less: False, ops.greater: False}


@rule(*_SELF_COMPARISON)
def comparison_with_itself(node: Node, rb: Rebuilder) -> Value | None:
    """i == i -> True, i < i -> False, ... for an integer or bool scalar (a
    float may be NaN): a gradient's replay compares an index with itself"""
    a, b = node.inputs
    if a is not b or a.dtype.kind not in "biu" or node.output.type.ndim:
        return None
    value = np.array(_SELF_COMPARISON[node.op])
    return rb.emit(ops.constant, (), {"value": value, "weak": node.output.type.weak},
                   loc=node.loc)


def _order_of(a: Value, b: Value, rb: Rebuilder) -> tuple[bool, bool, bool, bool] | None:
    """What the bounds of two integer scalars decide: (a < b always, a <= b
    always, a > b always, a >= b always), or None where either is unknown."""
    if a.type.ndim or b.type.ndim or rb.ranges is None:
        return None
    x, y = rb.ranges.of(a), rb.ranges.of(b)
    if x is None or y is None:
        return None
    return x[1] < y[0], x[1] <= y[0], x[0] > y[1], x[0] >= y[1]


_DECIDED_BY_ORDER = {  # op -> (index of the fact making it True, of the one making it False)
    ops.less: (0, 3), ops.less_equal: (1, 2), ops.greater: (2, 1), ops.greater_equal: (3, 0),
    ops.equal: (None, None), ops.not_equal: (None, None)}


@rule(*_DECIDED_BY_ORDER)
def comparison_decided_by_bounds(node: Node, rb: Rebuilder) -> Value | None:
    """i < 0 -> False where i runs over range(1, n), and so on: a gradient's
    replay normalises indices that the loop keeps in bounds (each such
    statement costs numba typing and lowering)"""
    order = _order_of(*node.inputs, rb)
    if order is None or node.output.type.ndim:
        return None
    lt, le, gt, ge = order
    if node.op in (ops.equal, ops.not_equal):
        if not (lt or gt):  # (equal single values: constant folding's)
            return None
        value = node.op is ops.not_equal
    else:
        true_at, false_at = _DECIDED_BY_ORDER[node.op]
        if order[true_at]:
            value = True
        elif order[false_at]:
            value = False
        else:
            return None
    return rb.emit(ops.constant, (), {"value": np.array(value), "weak": node.output.type.weak},
                   loc=node.loc)


@rule(ops.maximum, ops.minimum)
def extreme_decided_by_bounds(node: Node, rb: Rebuilder) -> Value | None:
    """maximum(i, 0) -> i where i >= 0 always (integers): the clamp of an
    index that is in bounds already"""
    a, b = node.inputs
    order = _order_of(a, b, rb)
    if order is None:
        return None
    _, le, _, ge = order
    wanted = (a if ge else b if le else None) if node.op is ops.maximum else \
        (a if le else b if ge else None)
    return wanted if wanted is not None and _same_type(node, wanted) else None


@rule(ops.bitwise_and, ops.bitwise_or, ops.minimum, ops.maximum, ops.fmin, ops.fmax)
def idempotent_of_itself(node: Node, rb: Rebuilder) -> Value | None:
    """x & x, x | x, maximum(x, x), ... -> x (exact for every dtype: the
    result is x's own bits)"""
    a, b = node.inputs
    return a if a is b and _same_type(node, a) else None


_BOOL_IDENTITY = {ops.bitwise_and: True, ops.logical_and: True,
                  ops.bitwise_or: False, ops.logical_or: False}


@rule(*_BOOL_IDENTITY)
def bool_with_its_identity(node: Node, rb: Rebuilder) -> Value | None:
    """b & True, b | False (and the logical forms) -> b for a bool b: a mask
    combined with a condition the trace decided (a gradient's alias test)"""
    if node.output.dtype != np.bool_ or any(v.dtype != np.bool_ for v in node.inputs):
        return None
    b = _other(node, _BOOL_IDENTITY[node.op])
    return b if b is not None and _same_type(node, b) else None


@rule(ops.positive, ops.astype, ops.reshape, ops.broadcast_to)
def identity_shape_or_cast(node: Node, rb: Rebuilder) -> Value | None:
    """+x, astype to the same dtype, reshape/broadcast to the same shape -> x"""
    x = node.inputs[0]
    return x if _same_type(node, x) else None


@rule(ops.broadcast_to)
def broadcast_of_unit_reshape(node: Node, rb: Rebuilder) -> Value | None:
    """broadcast_to(reshape(x, (1, ..., 1) + x.shape), s) -> broadcast_to(x, s)
    (the leading 1s are what broadcasting adds anyway: a gradient's seed)"""
    inner = node.inputs[0].producer
    if inner is None or inner.op is not ops.reshape:
        return None
    x = inner.inputs[0]
    shape = inner.attrs["shape"]
    lead = len(shape) - x.type.ndim
    if lead < 0 or tuple(shape[lead:]) != x.shape or any(d != 1 for d in shape[:lead]):
        return None
    return rb.emit(ops.broadcast_to, [x], {"shape": node.attrs["shape"]}, loc=node.loc)


@rule(ops.where)
def where_with_a_constant_condition(node: Node, rb: Rebuilder) -> Value | None:
    """where(True, x, y) -> x; where(False, x, y) -> y (a condition constant
    everywhere: np.digitize's direction for constant bins), when the chosen
    operand has the result's type"""
    condition, x, y = node.inputs
    value = _scalar(condition)
    if value is None:
        return None
    chosen = x if value else y
    if _same_type(node, chosen):
        return chosen
    return _as_constant_of(node, chosen, rb)


def _as_constant_of(node: Node, v: Value, rb: Rebuilder) -> Value | None:
    """A 0-d constant ``v`` chosen by a 0-d where, as a constant of the
    where's type (a Python float chosen by a condition known while tracing):
    cast as the where casts it."""
    value = _constant(v)
    out = node.output.type
    if value is None or out.ndim or v.type.ndim:
        return None
    return rb.emit(ops.constant, (), {"value": np.asarray(value).astype(out.dtype),
                                      "weak": out.weak}, loc=node.loc)


@rule(ops.reshape)
def reshape_of_reshape(node: Node, rb: Rebuilder) -> Value | None:
    """reshape(reshape(x, s1), s2) -> reshape(x, s2) (x of static shape: a
    reshape of a run-time length says which axis each comes from, per step)"""
    inner = node.inputs[0].producer
    if inner is None or inner.op is not ops.reshape or not inner.inputs[0].type.static:
        return None
    return rb.emit(ops.reshape, inner.inputs, {"shape": node.attrs["shape"]}, loc=node.loc)


@rule(ops.transpose)
def transpose_of_transpose(node: Node, rb: Rebuilder) -> Value | None:
    """transpose(transpose(x, p), q) -> transpose(x, p[q]), or x when identity"""
    perm = node.attrs["perm"]
    inner = node.inputs[0].producer
    if perm == tuple(range(len(perm))):
        return node.inputs[0]
    if inner is None or inner.op is not ops.transpose:
        return None
    composed = tuple(inner.attrs["perm"][p] for p in perm)
    if composed == tuple(range(len(perm))):
        return inner.inputs[0]
    return rb.emit(ops.transpose, inner.inputs, {"perm": composed}, loc=node.loc)


def simplify(graph: Graph) -> tuple[Graph, bool]:
    return apply_rules(graph, RULES)


# ---------------------------------------------------------------- matmul chains

def _matmul_flops(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    m = a[0] if len(a) == 2 else 1
    n = b[1] if len(b) == 2 else 1
    return m * a[-1] * n


def reassociate(graph: Graph) -> tuple[Graph, bool]:
    return apply_rules(graph, REASSOCIATION_RULES)


@rule(ops.matmul, table=REASSOCIATION_RULES)
def reassociate_matmul_chain(node: Node, rb: Rebuilder) -> Value | None:
    """(A @ B) @ C -> A @ (B @ C) when that needs fewer FLOPs (2-D/1-D operands).

    Not bit-exact (a different summation order, like any BLAS blocking); the
    intermediate must have no other use, so nothing is computed twice.
    """
    left, c = node.inputs
    inner = left.producer
    if inner is None or inner.op is not ops.matmul or _uses(rb, left) != 1:
        return None
    a, b = inner.inputs
    if max(a.type.ndim, b.type.ndim, c.type.ndim) > 2 or b.type.ndim == 1:
        return None
    if not all(v.dtype == node.output.dtype for v in (a, b, c)):
        return None
    before = _matmul_flops(a.shape, b.shape) + _matmul_flops(left.shape, c.shape)
    bc_shape = ops.matmul_shape(b.shape, c.shape)
    after = _matmul_flops(b.shape, c.shape) + _matmul_flops(a.shape, bc_shape)
    if after >= before:
        return None
    bc = rb.emit(ops.matmul, (b, c), loc=node.loc)
    return rb.emit(ops.matmul, (a, bc), loc=node.loc)


@rule(ops.dyn_setitem, table=REASSOCIATION_RULES)
def store_over_an_unread_store(node: Node, rb: Rebuilder) -> Value | None:
    """(x[i] = a)[i] = b -> x[i] = b where nothing else reads the first
    store's array and it cannot raise (its indices are in range by
    construction, or a store of the same region before it checked them).
    A gradient adds each contribution to a slice's cotangent by a store of
    its own: a loop and a kernel boundary apiece."""
    inner = node.inputs[0].producer
    if inner is None or inner.op is not node.op or not ops.same_region(inner, node) \
            or _uses(rb, node.inputs[0]) != 1:
        return None
    if inner.op.may_raise(inner) and not inner.attrs.get("bounded"):
        return None
    return rb.emit(node.op, [inner.inputs[0], *node.inputs[1:]], node.attrs, loc=node.loc)


def _uses(rb: Rebuilder, v: Value) -> int:
    return rb.use_counts.get(id(v), 0)
