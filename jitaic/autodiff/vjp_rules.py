"""VJP rules: one registry keyed by op.

A rule receives the node, its inputs and outputs as Tracers and the output
cotangent ``g``, and returns one cotangent per input (None where the input
gets no gradient). Rules are written with NumPy functions on Tracers, so the
backward pass is recorded as ordinary IR ops: it is optimised and fused like
any graph, and differentiable again (grad of grad).

Complex values follow JAX's convention (docs/autodiff.md): a complex value's
cotangent ``g`` pairs with a change ``dz`` as ``Re(g * dz)``, so a holomorphic
op's rule is its real formula unchanged (``g * f'(z)``, transposes without
conjugation) and a real-valued loss's gradient in ``z = x + iy`` is
``dL/dx - i dL/dy``. Rules right for complex values are listed in
COMPLEX_RULES; reverse.py refuses the others on complex values.

Conventions at kinks (documented for users in docs/autodiff.md):
- ``abs`` at 0: gradient 0 (sign(0) = 0);
- ``maximum``/``minimum`` ties: the gradient goes to the first operand;
- ``max``/``min`` reductions with ties: split equally among the maxima;
- ``sqrt`` at 0: inf (the derivative's limit), as NumPy arithmetic gives;
- ``where``: the gradient flows to the selected branch only;
- a zero cotangent gives a zero gradient where the local derivative is
  infinite or NaN (sqrt, log, division, power, ... at a singular point): the
  value of a branch ``np.where`` did not select, or one a masked store
  overwrote, does not change the function, and the gradient is the finite
  difference of the function as written, not 0 * inf = NaN; likewise a
  power's zero derivative (x ** 2 at 0) stops an infinite cotangent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from jitaic.errors import UnsupportedError, at, user_location
from jitaic.ir import ops
from jitaic.ir.graph import Node
from jitaic.ir.lengths import proven_axes, result_keys, value_key, window_keys
from jitaic.tracer import control_flow
from jitaic.tracer import numpy as tnp
from jitaic.tracer.core import Tracer, emit, new_tracer, traced_shape
from jitaic.tracer.numpy.index_routines import put_along_axis
from jitaic.tracer.numpy.sorting import argsort

Rule = Callable[..., tuple]
VJP_RULES: dict[ops.Op, Rule] = {}

# Ops whose outputs are piecewise constant or discrete: no gradient flows.
NON_DIFFERENTIABLE = frozenset({
    ops.floor, ops.ceil, ops.trunc, ops.rint, ops.isnan, ops.isinf,
    ops.isfinite, ops.signbit, ops.logical_not, ops.invert, ops.floor_divide, ops.equal,
    ops.not_equal, ops.less, ops.less_equal, ops.greater, ops.greater_equal,
    ops.logical_and, ops.logical_or, ops.logical_xor, ops.bitwise_and, ops.bitwise_or,
    ops.bitwise_xor, ops.left_shift, ops.right_shift, ops.reduce_any, ops.reduce_all,
    ops.argmax, ops.argmin, ops.argsort, ops.argsort_rows, ops.searchsorted, ops.constant,
    ops.full, ops.dyn_full, ops.dim_size, ops.default_rng, ops.generator_permutation,
    ops.generator_sample, ops.generator_weighted_sample, ops.check, ops.spacing, ops.gcd,
    ops.lcm, ops.bitwise_count,
    # Tapes hold saved primal values; a loop VJP that would have to
    # differentiate its own tape (grad of grad) raises UnsupportedError instead.
    ops.tape_new, ops.tape_push,
})


vjp_rule = ops.registrar(VJP_RULES, "VJP rule")


def is_differentiable(dtype: np.dtype) -> bool:
    """Values of real or complex floating dtypes carry gradients."""
    return dtype.kind in "fc"


def unbroadcast(g: Tracer, x: Tracer, target: Sequence[tuple | None] = ()) -> Tracer:
    """Sum ``g`` over the axes broadcasting added or stretched to reach its
    shape from ``x``'s. ``target``: the keys of the broadcast shape's run-time
    lengths (``lengths.result_keys``), where an axis of ``x`` with a run-time
    length not provably the target's may have been 1 and stretched.
    A sum over none of g's elements (``x * y[:0]``) is a zero the backward pass
    drops (reverse._accumulate): the operand had no effect on the result."""
    shape = x.aval.shape
    stretchable = ({k for k, d in enumerate(shape) if d is None}
                   - proven_axes(x.value, target)) if target else set()
    if g.shape == shape and not stretchable:
        return g
    if 0 in g.shape and 0 not in shape:  # (a 0-d zero for an operand of run-time length)
        return tnp.full_value(() if None in shape else shape, 0, g.dtype)
    lead = g.ndim - len(shape)
    if lead:
        g = tnp.sum_(g, axis=tuple(range(lead)))
    axes = tuple(i for i, d in enumerate(shape) if d == 1 and g.shape[i] != 1)
    if axes:
        g = tnp.sum_(g, axis=axes, keepdims=True)
    stretchable = [k for k in sorted(stretchable) if g.shape[k] is None]
    return summed_where_stretched(g, x, stretchable) if stretchable else g


def summed_where_stretched(g: Tracer, x: Tracer, axes: Sequence[int]) -> Tracer:
    """The cotangent of ``x`` from ``g`` of the shape it was broadcast to,
    on ``axes`` where x's length ``n`` is known at run time only: the forward
    checked that n is g's length (then g is the cotangent, as good as
    always), or 1 and stretched (then g summed over the axis, 0 if g is
    empty). The result has x's lengths, provably (``lengths.length_key``)."""
    for axis in axes:
        n, m = traced_shape(x)[axis], traced_shape(g)[axis]
        (g,) = control_flow.cond(n == m, lambda g=g: (g,),
                                 lambda g=g, axis=axis: (tnp.sum_(g, axis=axis, keepdims=True),),
                                 [])
    return emit(ops.broadcast_like, [g, x], scalar=False)


# Python floats, so they stay weak and float32 gradients stay float32.
_LN2, _LN10 = float(np.log(2.0)), float(np.log(10.0))
_DEG2RAD, _RAD2DEG = float(np.deg2rad(1.0)), float(np.rad2deg(1.0))


def _unary(derivative: Callable) -> Rule:
    """Elementwise f(x): dx = g * f'(x, out)."""
    return lambda node, g, x, out: (g * derivative(x, out),)


def _unless_zero(g: Tracer, product: Tracer) -> Tracer:
    """``product`` (g times a local derivative), but 0 where g is 0: the
    derivative may be inf or NaN there."""
    return np.where(g == 0, 0.0, product)


def _chain(g: Tracer, local: Tracer) -> Tracer:
    """g * local, but 0 where either is exactly 0: x ** 2 at x = 0 passes no
    gradient on even when an infinite one reaches it (sqrt(x ** 2) kept at 0,
    as the diagonal of an n-body distance matrix: the finite difference of
    x - x is 0)."""
    return np.where((g == 0) | (local == 0), 0.0, g * local)


def _singular_unary(derivative: Callable) -> Rule:
    """Elementwise f(x) whose derivative is infinite or NaN somewhere."""
    return lambda node, g, x, out: (_unless_zero(g, g * derivative(x, out)),)


def _define_unary() -> None:
    smooth = {
        ops.negative: lambda x, y: -1.0, ops.positive: lambda x, y: 1.0,
        ops.fabs: lambda x, y: np.sign(x),
        ops.deg2rad: lambda x, y: _DEG2RAD, ops.rad2deg: lambda x, y: _RAD2DEG,
        ops.exp: lambda x, y: y, ops.exp2: lambda x, y: y * _LN2,
        ops.expm1: lambda x, y: y + 1.0,
        ops.square: lambda x, y: 2.0 * x,
        ops.sin: lambda x, y: np.cos(x), ops.cos: lambda x, y: -np.sin(x),
        ops.tan: lambda x, y: 1.0 + y * y,
        ops.arctan: lambda x, y: 1.0 / (1.0 + x * x),
        ops.sinh: lambda x, y: np.cosh(x), ops.cosh: lambda x, y: np.sinh(x),
        ops.tanh: lambda x, y: 1.0 - y * y,
        ops.arcsinh: lambda x, y: 1.0 / np.sqrt(x * x + 1.0),
    }
    singular = {  # infinite or NaN derivative at some finite x
        ops.log: lambda x, y: 1.0 / x, ops.log2: lambda x, y: 1.0 / (x * _LN2),
        ops.log10: lambda x, y: 1.0 / (x * _LN10), ops.log1p: lambda x, y: 1.0 / (x + 1.0),
        ops.sqrt: lambda x, y: 0.5 / y, ops.cbrt: lambda x, y: 1.0 / (3.0 * y * y),
        ops.reciprocal: lambda x, y: -(y * y),
        ops.arcsin: lambda x, y: 1.0 / np.sqrt(1.0 - x * x),
        ops.arccos: lambda x, y: -1.0 / np.sqrt(1.0 - x * x),
        # not 1 / sqrt(x * x - 1): of a complex x that is off by a sign where
        # Re x < 0 (branch cuts); the same for real x
        ops.arccosh: lambda x, y: 1.0 / (np.sqrt(x - 1.0) * np.sqrt(x + 1.0)),
        ops.arctanh: lambda x, y: 1.0 / (1.0 - x * x),
    }
    for op, derivative in smooth.items():
        vjp_rule(op)(_unary(derivative))
    for op, derivative in singular.items():
        vjp_rule(op)(_singular_unary(derivative))


_define_unary()


@vjp_rule(ops.absolute)
def _absolute(node, g, x, out):
    """sign(x) for real x (0 at 0); conj(x) / |x| for complex x (0 at 0):
    d|z| = Re(conj(z) dz) / |z|."""
    if x.dtype.kind != "c":
        return (g * np.sign(x),)
    return (tnp.where(x == 0, 0.0, g * np.conjugate(x) / out),)


@vjp_rule(ops.conjugate)
def _conjugate(node, g, x, out):
    """Re(g * conj(dz)) = Re(conj(g) * dz); of a real x, x itself."""
    return (np.conjugate(g),)


@vjp_rule(ops.sign)
def _sign(node, g, x, out):
    """Piecewise constant for real x; z / |z| for complex z, whose cotangent
    is g / |z| - Re(g z) conj(z) / |z|**3 (0 at 0)."""
    if x.dtype.kind != "c":
        return (None,)
    r = np.absolute(x)
    r = tnp.where(r == 0, 1.0, r)
    ct = g / r - np.real(g * x) * np.conjugate(x) / (r * r * r)
    return (tnp.where(x == 0, 0.0, ct),)


@vjp_rule(ops.real)
def _real(node, g, x, out):
    return (g,)  # Re(g * dz) for a real g: reverse.py makes it complex


@vjp_rule(ops.imag)
def _imag(node, g, x, out):
    """g * Im(dz) = Re(-1j * g * dz); the imaginary part of a real value is 0."""
    return (g * -1j,) if x.dtype.kind == "c" else (None,)


@vjp_rule(ops.make_complex)
def _make_complex(node, g, re, im, out):
    """Re(g * (d re + 1j d im)) = Re(g) d re - Im(g) d im."""
    return (np.real(g), -np.imag(g))


def _binary(da: Callable, db: Callable) -> Rule:
    """Elementwise f(a, b) with broadcasting: cotangents summed back to each shape."""
    def rule(node, g, a, b, out):
        keys = result_keys(node.output)
        return (unbroadcast(da(g, a, b, out), a, keys), unbroadcast(db(g, a, b, out), b, keys))

    return rule


vjp_rule(ops.add)(_binary(lambda g, a, b, y: g, lambda g, a, b, y: g))
vjp_rule(ops.subtract)(_binary(lambda g, a, b, y: g, lambda g, a, b, y: -g))
vjp_rule(ops.multiply)(_binary(lambda g, a, b, y: g * b, lambda g, a, b, y: g * a))
vjp_rule(ops.true_divide)(_binary(lambda g, a, b, y: _unless_zero(g, g / b),
                                  lambda g, a, b, y: _unless_zero(g, -g * y / b)))
vjp_rule(ops.power)(_binary(
    lambda g, a, b, y: _chain(g, b * a ** np.where(b == 0, 1.0, b - 1.0)),
    lambda g, a, b, y: _unless_zero(g, g * y * np.log(_log_safe(a)))))


def _log_safe(a: Tracer) -> Tracer:
    """a where log(a) is the derivative of a ** b in b, 1 elsewhere: a > 0 if
    real (NumPy's power is NaN below 0 anyway), a != 0 if complex (the
    principal logarithm)."""
    return np.where(a != 0 if a.dtype.kind == "c" else a > 0, a, 1.0)
vjp_rule(ops.mod)(_binary(lambda g, a, b, y: g, lambda g, a, b, y: -g * np.floor_divide(a, b)))
vjp_rule(ops.fmod)(_binary(lambda g, a, b, y: g, lambda g, a, b, y: -g * np.trunc(a / b)))
# nextafter(a, b) is a moved by one unit in the last place: a's derivative, 1
vjp_rule(ops.nextafter)(_binary(lambda g, a, b, y: g, lambda g, a, b, y: g * 0.0))


@vjp_rule(ops.ldexp)
def _ldexp(node, g, a, exponent, out):
    # a * 2**n: the cotangent scaled by the same power of two; none for the integer n
    return (unbroadcast(np.ldexp(g, exponent), a, result_keys(node.output)), None)

vjp_rule(ops.maximum, ops.fmax)(_binary(lambda g, a, b, y: np.where(a >= b, g, 0.0),
                                        lambda g, a, b, y: np.where(a >= b, 0.0, g)))
vjp_rule(ops.minimum, ops.fmin)(_binary(lambda g, a, b, y: np.where(a <= b, g, 0.0),
                                        lambda g, a, b, y: np.where(a <= b, 0.0, g)))
vjp_rule(ops.arctan2)(_binary(lambda g, a, b, y: _unless_zero(g, g * b / (a * a + b * b)),
                              lambda g, a, b, y: _unless_zero(g, -g * a / (a * a + b * b))))
vjp_rule(ops.hypot)(_binary(lambda g, a, b, y: _unless_zero(g, g * a / y),
                            lambda g, a, b, y: _unless_zero(g, g * b / y)))


@vjp_rule(ops.copysign)
def _copysign(node, g, a, b, out):
    # |a| with b's sign: the derivative in a is sign(a) (0 at 0, as abs's) times b's sign.
    return (unbroadcast(g * np.sign(a) * np.copysign(1.0, b), a, result_keys(node.output)), None)


@vjp_rule(ops.where)
def _where(node, g, cond, a, b, out):
    chosen, keys = _known_everywhere(cond), result_keys(node.output)
    if chosen is not None:  # a condition the trace decided: one operand gets all of g
        return (None, unbroadcast(g, a, keys) if chosen else None,
                None if chosen else unbroadcast(g, b, keys))
    return (None, unbroadcast(np.where(cond, g, 0.0), a, keys),
            unbroadcast(np.where(cond, 0.0, g), b, keys))


def _known_everywhere(cond: Tracer) -> bool | None:
    """True or False when the condition is a constant equal everywhere."""
    node = cond.value.producer
    if node is None or node.op is not ops.constant:
        return None
    value = np.asarray(node.attrs["value"])
    return bool(value.flat[0]) if value.size and (value == value.flat[0]).all() else None


@vjp_rule(ops.astype)
def _astype(node, g, x, out):
    # a complex g of a real x: its real part (reverse.py casts it)
    return (g,) if is_differentiable(x.dtype) else (None,)


# ---------------------------------------------------------------- reductions

def _keepdims(g: Tracer, node: Node, x: Tracer) -> Tracer:
    """The output cotangent reshaped so it broadcasts against the input."""
    axes = node.attrs["axes"]
    shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    return tnp.reshape(g, shape)


@vjp_rule(ops.reduce_sum)
def _sum(node, g, x, out):
    if not x.aval.static:  # a run-time length: broadcast against x itself
        return (emit(ops.broadcast_like, [_keepdims(g, node, x), x], scalar=False),)
    return (tnp.broadcast_to(_keepdims(g, node, x), x.shape),)


@vjp_rule(ops.broadcast_like)
def _broadcast_like(node, g, x, like, out):
    return (unbroadcast(g, x, result_keys(node.output)), None)


@vjp_rule(ops.reduce_prod)
def _prod(node, g, x, out):
    """d prod / d x_i is the product of the other elements of x_i's group."""
    if not x.aval.static:  # run-time lengths: prod / x_i (exact away from zeros)
        return (_keepdims(g, node, x) * _keepdims(out, node, x) / x,)
    return (_keepdims(g, node, x) * _products_of_the_others(x, node.attrs["axes"]),)


def _products_of_the_others(x: Tracer, axes: tuple[int, ...]) -> Tracer:
    """For each element, the product of the other elements of its group (over
    ``axes``): running products from both ends, each stopping before the
    element, multiplied. Exact at zeros, where prod / x_i is 0 / 0."""
    kept = [i for i in range(x.ndim) if i not in axes]
    order = (*kept, *axes)
    moved = tnp.transpose(x, order)
    group = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    if group == 0:
        return x * 0
    rows = tnp.reshape(moved, (*moved.shape[:len(kept)], group))
    one = tnp.full_value((*rows.shape[:-1], 1), 1.0, x.dtype)

    def before(v: Tracer) -> Tracer:  # product of the elements before each one
        return tnp.concatenate([one, tnp.cumprod(v, -1)[..., :-1]], axis=-1)

    others = before(rows) * tnp.flip(before(tnp.flip(rows, -1)), -1)
    return tnp.transpose(tnp.reshape(others, moved.shape), tuple(np.argsort(order)))


def _reverse_cumsum(g: Tracer, axis: int) -> Tracer:
    """sum of g[j] over j >= i along the axis: cumsum's transpose."""
    return tnp.flip(tnp.cumsum(tnp.flip(g, axis), axis), axis)


@vjp_rule(ops.cumsum)
def _cumsum(node, g, x, out):
    return (_reverse_cumsum(g, node.attrs["axis"]),)


@vjp_rule(ops.cumprod)
def _cumprod(node, g, x, out):
    """d out[j] / d x[i] (j >= i) is the product of x[:j + 1] but x[i]: out[j] / x[i]
    where x[i] is not 0 (exact also past a zero, where both are 0). At the
    first zero of a row it is cumprod(x with that zero set to 1)[j]; at a
    later zero, 0 (the first zero stays in the product)."""
    axis = node.attrs["axis"]
    zero = x == 0
    first_zero = zero & (tnp.cumsum(zero, axis) == 1)
    nonzero = tnp.where(zero, 1.0, x)
    at_first_zero = _reverse_cumsum(g * tnp.cumprod(tnp.where(first_zero, 1.0, x), axis), axis)
    elsewhere = _reverse_cumsum(g * out, axis) / nonzero
    return (tnp.where(zero, tnp.where(first_zero, at_first_zero, 0.0), elsewhere),)


@vjp_rule(ops.cummax, ops.cummin)
def _running_extreme(node, g, x, out):
    """out[i] is x[j] for j the last position <= i where x equalled the running
    max/min (a new extreme, a tie or a NaN): a running max of those positions
    finds j, and g[i] is added into x[j]."""
    axis = node.attrs["axis"]
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    position = tnp.broadcast_to(tnp.as_tracer(np.arange(x.shape[axis]).reshape(shape)),
                                x.shape)
    hit = (x == out) | (x != x)
    source = tnp.cummax(tnp.where(hit, position, 0), axis)
    index = [tnp.broadcast_to(tnp.as_tracer(np.arange(n).reshape(
        [n if d == k else 1 for d in range(x.ndim)])), x.shape) for k, n in enumerate(x.shape)]
    index[axis] = source
    gx = tnp.full_value(x.shape, 0, x.dtype)
    tnp.add_at(gx, tuple(index), g)
    return (gx,)


@vjp_rule(ops.select)
def _select(node, g, x, out):
    """Each selected value's gradient is split among the lane's elements equal
    to it (one, unless there are ties), as max's is."""
    gx = None
    for j in range(len(node.attrs["ks"])):
        hit = tnp.astype(x == out[..., j:j + 1], x.dtype)
        share = g[..., j:j + 1] * hit / tnp.sum_(hit, axis=-1, keepdims=True)
        gx = share if gx is None else gx + share
    return (gx,)


@vjp_rule(ops.reduce_max, ops.reduce_min)
def _extreme(node, g, x, out):
    hit = tnp.astype(x == _keepdims(out, node, x), x.dtype)
    count = tnp.sum_(hit, axis=node.attrs["axes"], keepdims=True)
    return (_keepdims(g, node, x) * hit / count,)


# ---------------------------------------------------------------- linear algebra

@vjp_rule(ops.fft)
def _fft(node, g, x, out):
    """The DFT matrix is symmetric: its transpose is the same transform (of a
    real x, its real part)."""
    dx = emit(ops.fft, [tnp.astype(g, out.dtype, copy=False)], node.attrs, scalar=False)
    return (dx if x.dtype.kind == "c" else emit(ops.real, [dx], scalar=False),)


@vjp_rule(ops.matmul)
def _matmul(node, g, a, b, out):
    # products with a vector: the gradients are a scaling, an outer product
    # (broadcast multiplies, fused with what uses them) or one product with
    # a vector, not products of reshaped 1-row matrices
    if a.ndim == 1 and b.ndim == 1:
        return g * b, g * a
    if a.ndim == 1 and b.ndim == 2:
        return tnp.matmul(b, g), tnp.expand_dims(a, -1) * g
    if a.ndim == 2 and b.ndim == 1:
        return tnp.expand_dims(g, -1) * b, tnp.matmul(g, a)
    a2 = tnp.reshape(a, (1,) + a.shape) if a.ndim == 1 else a
    b2 = tnp.reshape(b, b.shape + (1,)) if b.ndim == 1 else b
    g2 = g
    if a.ndim == 1:
        g2 = tnp.expand_dims(g2, -1 if b.ndim == 1 else g2.ndim - 1)
    if b.ndim == 1:
        g2 = tnp.expand_dims(g2, -1)
    da = tnp.matmul(g2, tnp.swapaxes(b2, -1, -2))
    db = tnp.matmul(tnp.swapaxes(a2, -1, -2), g2)
    return (tnp.reshape(unbroadcast(da, a2), a.shape),
            tnp.reshape(unbroadcast(db, b2), b.shape))


def _transposed(x: Tracer) -> Tracer:
    return tnp.swapaxes(x, -1, -2)


def _solve(a: Tracer, b: Tracer) -> Tracer:
    """The solve op itself: b of one dimension less than a is a stack of vectors."""
    return emit(ops.solve, [a, b], scalar=False)


def _times_inverse_transposed(scale: Tracer, a: Tracer) -> Tracer:
    """scale (one per matrix) * inv(a).T: the gradient of det's and log|det|'s."""
    return tnp.expand_dims(scale, (-1, -2)) * _transposed(emit(ops.inv, [a], scalar=False))


@vjp_rule(ops.inv)
def _inv(node, g, a, out):
    t = _transposed(out)
    return (-tnp.matmul(tnp.matmul(t, g), t),)


@vjp_rule(ops.solve)
def _solve_vjp(node, g, a, b, out):
    gb = _solve(_transposed(a), g)
    if b.ndim == a.ndim - 1:  # vectors
        return -tnp.expand_dims(gb, -1) * tnp.expand_dims(out, -2), gb
    return -tnp.matmul(gb, _transposed(out)), gb


@vjp_rule(ops.det)
def _det(node, g, a, out):
    return (_times_inverse_transposed(g * out, a),)


@vjp_rule(ops.slogdet)
def _slogdet(node, g, a, out):
    """With t = tr(inv(a) da): d log|det| = Re(t), and the sign s moves by
    s * 1j * Im(t) (a complex one; a real sign has no gradient). So the
    cotangent is c * inv(a).T, c = Re(g_log) + 1j * Im(g_sign * s)."""
    if a.dtype.kind != "c":
        return (_times_inverse_transposed(g[..., 1], a),)
    scale = np.real(g[..., 1]) + 1j * np.imag(g[..., 0] * out[..., 0])
    return (_times_inverse_transposed(scale, a),)


@vjp_rule(ops.cholesky)
def _cholesky(node, g, a, out):
    """Y = L^-T Phi(L^T g) L^-1, Phi: the lower triangle, its diagonal halved.
    NumPy's cholesky reads a's lower triangle only, so an entry below the
    diagonal gets Y + Y^T there, the diagonal Y's, the upper triangle 0 (a
    symmetric a built from other values gets the symmetric gradient through
    them all the same)."""
    n = a.shape[-1]
    lower = tnp.as_tracer(np.tri(n, dtype=a.dtype))
    strictly_lower = tnp.as_tracer(np.tri(n, k=-1, dtype=a.dtype))
    lt = _transposed(out)
    phi = tnp.matmul(lt, g) * (lower - 0.5 * tnp.as_tracer(np.eye(n, dtype=a.dtype)))
    y = _transposed(_solve(lt, _transposed(_solve(lt, phi))))
    return (y * lower + _transposed(y) * strictly_lower,)


# ---------------------------------------------------------------- shapes and indexing

@vjp_rule(ops.reshape)
def _reshape(node, g, x, out):
    return (tnp.reshape(g, x.shape),)


@vjp_rule(ops.transpose)
def _transpose(node, g, x, out):
    inverse = tuple(int(i) for i in np.argsort(node.attrs["perm"]))
    return (tnp.transpose(g, inverse),)


@vjp_rule(ops.broadcast_to)
def _broadcast_to(node, g, x, out):
    return (unbroadcast(g, x),)


# A slice's cotangent is zeros with the slice stored in (the VJP of reading
# it); adding that to an accumulated cotangent touches the slice only.


def add_cotangents(total: Tracer, g: Tracer) -> Tracer:
    """``total + g``, where ``g`` is a cotangent of the same shape. When ``g``
    is a slice stored into zeros, only ``total``'s slice is added to: a loop
    reading one row of a matrix per iteration then accumulates the matrix's
    gradient in O(row) per iteration (in place: the accumulator is dead
    after), not O(matrix)."""
    if not is_slice_of_zeros(g) or total.shape != g.shape or total.dtype != g.dtype:
        return total + g
    node = g.value.producer
    _, v, *dyn = (new_tracer(x, scalar=False) for x in node.inputs)
    cleared = total.value.producer
    if (cleared is not None and cleared.op is node.op and ops.same_region(cleared, node)
            and _is_zeros(cleared.inputs[1])):
        # total is a store's cotangent, zero where the store wrote: the sum
        # there is g's slice (x[s] = f(x[s]) is differentiated this way)
        base = new_tracer(cleared.inputs[0], scalar=False)
        return emit(node.op, [base, v, *dyn], node.attrs, scalar=False)
    part = emit(ops.READ_OF_STORE[node.op], [total, *dyn], _bounded(node), scalar=False)
    summed = tnp.astype(part + v, total.dtype)
    return emit(node.op, [total, summed, *dyn], node.attrs, scalar=False)


def _bounded(store) -> dict:
    """The attributes of the read of a store's region, at indices the forward
    op checked (a cotangent's slice sits where the forward read or wrote):
    not checked again (``ops.dyn_getitem``)."""
    if store.op is ops.dyn_setitem:
        return {**store.attrs, "bounded": True}
    return store.attrs


def is_slice_of_zeros(g: Tracer) -> bool:
    """A cotangent that is zero but for one slice (a read's, or a store's)."""
    node = g.value.producer
    return node is not None and node.op in ops.READ_OF_STORE and _is_zeros(node.inputs[0])


def _is_zeros(v) -> bool:
    node = v.producer
    return node is not None and node.op is ops.full and node.attrs["fill"] == 0


@vjp_rule(ops.getitem)
def _getitem(node, g, x, out):
    zeros = tnp.full_value(traced_shape(x), 0.0, x.dtype)
    return (emit(ops.setitem, [zeros, g], {"index": node.attrs["index"]}, scalar=False),)


@vjp_rule(ops.setitem)
def _setitem(node, g, x, v, out):
    index = node.attrs["index"]
    zero = tnp.full_value((), 0.0, x.dtype)  # broadcast over the overwritten region
    # the read first: the store is then g's last use and may overwrite it in place
    dv = emit(ops.getitem, [g], {"index": index}, scalar=False)
    dx = emit(ops.setitem, [g, zero], {"index": index}, scalar=False)
    return (dx, unbroadcast(dv, v))


@vjp_rule(ops.concatenate)
def _concatenate(node, g, *inputs_and_out):
    *inputs, _ = inputs_and_out
    axis, start, grads = node.attrs["axis"], 0, []
    for x in inputs:
        stop = start + x.shape[axis]
        index = tuple((0, d, 1) for d in g.shape[:axis]) + ((start, stop, 1),)
        grads.append(emit(ops.getitem, [g], {"index": index}, scalar=False))
        start = stop
    return tuple(grads)


def _reverses_whole_axes(index: tuple) -> bool:
    """Every entry takes a whole axis, forwards or backwards (np.flip of x[:i]):
    the view is its own inverse, whatever the axes' run-time lengths."""
    return all(isinstance(e, tuple) and e[0] == ops.RANGE and e[1] is None
               and e[2] is None and e[3] in (1, -1) for e in index)


@vjp_rule(ops.dyn_getitem)
def _dyn_getitem(node, g, x, *dyn_and_out):
    *dyn, _ = dyn_and_out
    if not dyn and _reverses_whole_axes(node.attrs["index"]) and x.shape == g.shape:
        return (emit(ops.dyn_getitem, [g], {"index": node.attrs["index"]}, scalar=False),)
    zeros = tnp.full_value(traced_shape(x), 0.0, x.dtype)
    dx = emit(ops.dyn_setitem, [zeros, g, *dyn], {"index": node.attrs["index"],
                                                  "bounded": True}, scalar=False)
    return (dx, *(None for _ in dyn))


@vjp_rule(ops.dyn_setitem)
def _dyn_setitem(node, g, x, v, *dyn_and_out):
    *dyn, _ = dyn_and_out
    index = node.attrs["index"]
    zero = tnp.full_value((), 0.0, x.dtype)  # broadcast over the overwritten region
    dv = emit(ops.dyn_getitem, [g, *dyn], {"index": index, "bounded": True},  # read first
              scalar=False)
    dx = emit(ops.dyn_setitem, [g, zero, *dyn], {"index": index, "bounded": True},
              scalar=False)
    keys = window_keys(x.aval.shape, index, [d.value for d in dyn])
    return (dx, unbroadcast(dv, v, keys), *(None for _ in dyn))



@vjp_rule(ops.compress)
def _compress(node, g, x, mask, out):
    zeros = tnp.full_value(traced_shape(x), 0.0, x.dtype)
    return (emit(ops.mask_scatter, [zeros, g, mask], scalar=False), None)


@vjp_rule(ops.mask_scatter)
def _mask_scatter(node, g, x, v, mask, out):
    zero = tnp.full_value((), 0.0, x.dtype)  # overwritten entries of x get no gradient
    dx = emit(ops.mask_scatter, [g, zero, mask], scalar=False)
    rows = emit(ops.compress, [g, mask], scalar=False)
    # rows of v that are not one per true entry of the mask may be 1 and stretch
    gathered = ops.gathering_mask(v.value)
    one_each = gathered is not None and value_key(gathered) == value_key(mask.value)
    return (dx, unbroadcast(rows, v, () if one_each else result_keys(rows.value)), None)


def _index_attrs(node: Node, accumulate: bool) -> dict:
    return {"axes": node.attrs["axes"], "front": node.attrs["front"], "accumulate": accumulate}


@vjp_rule(ops.gather)
def _gather(node: Node, g, x, *indices_and_out):
    *indices, _ = indices_and_out
    zeros = tnp.full_value(traced_shape(x), 0.0, x.dtype)
    # repeated indices read one element several times: their cotangents add up
    dx = emit(ops.scatter, [zeros, tnp.astype(g, x.dtype), *indices],
              _index_attrs(node, True), scalar=False)
    return (dx, *(None for _ in indices))


@vjp_rule(ops.sort)
def _sort(node: Node, g, x, out):
    """Each sorted element's cotangent goes back to where the stable argsort
    found it (tied elements: in their input order, the gather np.sort was)."""
    axis = node.attrs["axis"]
    dx = tnp.full_value(traced_shape(x), 0.0, x.dtype)
    put_along_axis(dx, argsort(x, axis), tnp.astype(g, x.dtype), axis)
    return (dx,)


@vjp_rule(ops.scatter)
def _scatter(node: Node, g, x, v, *indices_and_out):
    *indices, _ = indices_and_out
    gather_attrs = {"axes": node.attrs["axes"], "front": node.attrs["front"]}
    dv = emit(ops.gather, [g, *indices], gather_attrs, scalar=False)
    if node.attrs["accumulate"]:
        return (g, unbroadcast(dv, v), *(None for _ in indices))
    # x[idx] = v with a repeated index keeps the last write: the others get no gradient
    dv = tnp.where(_last_writes(node, x, indices), dv, tnp.full_value((), 0.0, dv.dtype))
    # overwritten elements of x get no gradient
    covered = tnp.full_value((), 0.0, x.dtype)
    dx = emit(ops.scatter, [g, covered, *indices], _index_attrs(node, False), scalar=False)
    return (dx, unbroadcast(dv, v), *(None for _ in indices))


def _last_writes(node: Node, x: Tracer, indices: list[Tracer]) -> Tracer:
    """Which elements of ``x[idx] = v`` survive (the last of a repeated index):
    scatter each index position's number, then read back which number stayed."""
    shape = ops.broadcast_shapes(*(i.shape for i in indices))
    if None not in shape:
        ids = tnp.as_tracer(np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape))
    elif len(shape) == 1:  # a run-time length: number the positions with a scan
        ones = sum(tnp.astype(i, np.int64) * 0 for i in indices) + 1  # broadcast
        ids = tnp.cumsum(ones) - 1
    else:
        raise UnsupportedError(f"the gradient of an assignment through index arrays with "
                               f"several dimensions, one of a run-time length, is not "
                               f"supported{at(user_location())}")
    target_ndim = node.output.type.ndim - len(node.attrs["axes"]) + len(shape)
    first = 0 if node.attrs["front"] else node.attrs["axes"][0]
    ids = tnp.reshape(ids, tuple(ids.shape) + (1,) * (target_ndim - first - len(shape)))
    marker = emit(ops.scatter, [tnp.full_value(x.shape, -1, np.int64), ids, *indices],
                  _index_attrs(node, False), scalar=False)
    gather_attrs = {"axes": node.attrs["axes"], "front": node.attrs["front"]}
    return emit(ops.gather, [marker, *indices], gather_attrs, scalar=False) == ids


@vjp_rule(ops.numpy_call, ops.random_call)
def _numpy_call(node, g, *inputs_and_out):
    *inputs, _ = inputs_and_out
    if not _traced_operands(node):  # random draws of constant parameters
        return tuple(None for _ in inputs)
    name = "np" + node.attrs["function"][len("numpy"):]
    raise UnsupportedError(f"the gradient of {name}, which NumPy computes (called back "
                           f"from the compiled code), is not supported{at(node.loc)}")


@vjp_rule(ops.generator_draw)
def _generator_draw(node, g, generator, *params_and_out):
    *params, _ = params_and_out
    if not _traced_operands(node):  # noise: its parameters are constants
        return (None, *(None for _ in params))
    raise UnsupportedError(f"the gradient of Generator.{node.attrs['method']} with respect "
                           f"to its parameters is not supported{at(node.loc)}")


def _traced_operands(node: Node) -> bool:
    """Whether an input of ``node`` may carry a gradient (not a constant)."""
    return any(is_differentiable(v.dtype) and not (
        v.producer is not None and v.producer.op in (ops.constant, ops.full))
        for v in node.inputs)


# Rules right for complex values: holomorphic formulas (the real one, unchanged
# in JAX's convention) and the rules above written for complex values. The
# factorisations, cholesky (a Hermitian product) and the order statistics are
# not among them.
COMPLEX_RULES = frozenset({
    ops.negative, ops.positive, ops.conjugate, ops.absolute, ops.sign, ops.real,
    ops.imag, ops.make_complex, ops.astype,
    ops.exp, ops.exp2, ops.expm1, ops.square, ops.sin, ops.cos, ops.tan, ops.arctan,
    ops.sinh, ops.cosh, ops.tanh, ops.arcsinh, ops.log, ops.log2, ops.log10, ops.log1p,
    ops.sqrt, ops.reciprocal, ops.arcsin, ops.arccos, ops.arccosh, ops.arctanh,
    ops.add, ops.subtract, ops.multiply, ops.true_divide, ops.power, ops.where,
    ops.reduce_sum, ops.reduce_prod, ops.cumsum, ops.cumprod, ops.broadcast_like,
    ops.matmul, ops.inv, ops.solve, ops.det, ops.slogdet, ops.fft,
    ops.reshape, ops.transpose, ops.broadcast_to, ops.getitem, ops.setitem,
    ops.concatenate, ops.dyn_getitem, ops.dyn_setitem, ops.compress, ops.mask_scatter,
    ops.gather, ops.scatter,
})
