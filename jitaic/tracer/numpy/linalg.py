"""Linear algebra: dot, inner, outer, vdot, tensordot, multi_dot and einsum
as matrix products, norms, matrix powers, solve/inv/det/slogdet/cholesky
through LAPACK (and tensorsolve/tensorinv over them), cross products and
traces.
"""

from __future__ import annotations

import operator
import string

import numpy as np

from jitaic.errors import at, user_location
from jitaic.ir import ops
from jitaic.tracer.core import Tracer, emit, new_tracer
from jitaic.tracer.numpy.common import (
    as_array,
    as_tracer,
    astype,
    broadcast_to,
    lapack_operand,
    normalize_axes,
    not_lowered,
    size_of,
    static_ints,
    unsupported,
)
from jitaic.tracer.numpy.decompositions import svd
from jitaic.tracer.numpy.indexing import diagonal, getitem
from jitaic.tracer.numpy.reductions import amax, amin, sum_
from jitaic.tracer.numpy.registry import implements
from jitaic.tracer.numpy.shapes import (
    expand_dims,
    moveaxis,
    ravel,
    reshape,
    stack,
    swapaxes,
    transpose,
)
from jitaic.tracer.numpy.ufuncs import apply_ufunc, matmul, real, squared_magnitude


@implements(np.dot, method="dot")
def dot(a, b, out=None):
    if out is not None:
        raise unsupported("np.dot(out=)")
    a, b = as_array(a), as_array(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    summed = max(b.ndim - 2, 0)  # b's second-to-last axis (its only one when 1-D)
    if a.shape[-1] != b.shape[summed]:
        raise ValueError(f"shapes {_shape_text(a.shape)} and {_shape_text(b.shape)} not "
                         f"aligned: {a.shape[-1]} "
                         f"(dim {a.ndim - 1}) != {b.shape[summed]} (dim {summed})"
                         f"{at(user_location())}")
    if a.ndim > 2 or b.ndim > 2:  # every row of a with every column of b: no broadcasting
        return tensordot(a, b, ((a.ndim - 1,), (summed,)))
    return matmul(a, b)


def _shape_text(shape: tuple) -> str:
    """A shape as NumPy's messages print it: (2,3,4), (4,)."""
    return "(" + ",".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


@implements(np.outer)
def outer(a, b, out=None):
    if out is not None:
        raise unsupported("np.outer(out=)")
    a, b = ravel(a), ravel(b)
    return reshape(a, (-1, 1)) * reshape(b, (1, -1))


@implements(np.kron)
def kron(a, b):
    """NumPy's: every element of ``a`` times all of ``b``, as one broadcast
    product of the two with their axes interleaved."""
    a, b = as_array(a), as_array(b)
    if a.ndim < b.ndim:  # NumPy promotes a to at least b's rank first
        a = reshape(a, (1,) * (b.ndim - a.ndim) + a.shape)
    if b.ndim == 0 or a.ndim == 0:
        return apply_ufunc(np.multiply, a, b)
    b_shape = (1,) * (a.ndim - b.ndim) + b.shape
    spread_a = reshape(a, tuple(d for n in a.shape for d in (n, 1)))
    spread_b = reshape(b, tuple(d for n in b_shape for d in (1, n)))
    return reshape(apply_ufunc(np.multiply, spread_a, spread_b),
                   tuple(m * n for m, n in zip(a.shape, b_shape)))


@implements(np.vdot)
def vdot(a, b):
    """NumPy's: the first operand conjugated (a plain dot product for real ones)."""
    return sum_(apply_ufunc(np.conjugate, ravel(a)) * ravel(b))


@implements(np.inner)
def inner(a, b):
    a, b = as_array(a), as_array(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if a.ndim <= 2 and b.ndim <= 2:
        return matmul(a, swapaxes(b, -1, -2)) if b.ndim > 1 else matmul(a, b)
    return tensordot(a, b, ([-1], [-1]))  # a's leading axes, then b's


@implements(np.linalg.norm)
def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's formulas: vector ords (None/2, 1, inf, -inf, 0, other p) and
    matrix ords ("fro", 1, -1, inf, -inf, and through singular values 2, -2,
    "nuc")."""
    x = as_tracer(x)
    if x.dtype.kind not in "fc":
        x = astype(x, np.float64)
    axes = normalize_axes(axis, x.ndim)
    if ord is None or (ord == "fro" and len(axes) == 2) or (ord == 2 and len(axes) == 1):
        return apply_ufunc(np.sqrt, sum_(squared_magnitude(x), axis=axis, keepdims=keepdims))
    magnitude = apply_ufunc(np.absolute, x)
    if len(axes) == 1:
        if ord == np.inf:
            return amax(magnitude, axis=axis, keepdims=keepdims)
        if ord == -np.inf:
            return amin(magnitude, axis=axis, keepdims=keepdims)
        if ord == 0:
            return sum_(astype(apply_ufunc(np.not_equal, x, 0), magnitude.dtype), axis=axis,
                        keepdims=keepdims)
        if ord == 1:
            return sum_(magnitude, axis=axis, keepdims=keepdims)
        if isinstance(ord, (int, float)) and not isinstance(ord, bool):
            total = sum_(magnitude ** ord, axis=axis, keepdims=keepdims)
            return total ** (1.0 / ord)
    elif len(axes) == 2 and ord in (2, -2, "nuc"):
        return singular_value_norm(x, ord, axis, keepdims)
    elif len(axes) == 2 and ord in (1, -1, np.inf, -np.inf):
        rows, cols = (axes if axis is None else  # in the user's order, as NumPy's
                      tuple(normalize_axes(a, x.ndim)[0] for a in axis))
        summed, over = (rows, cols) if ord in (1, -1) else (cols, rows)
        pick = amax if ord in (1, np.inf) else amin
        totals = sum_(magnitude, axis=summed, keepdims=keepdims)
        return pick(totals, axis=over - (over > summed and not keepdims), keepdims=keepdims)
    raise unsupported(f"np.linalg.norm with ord={ord!r} over {len(axes)} axes")


def singular_value_norm(x: Tracer, ord, axis, keepdims: bool) -> Tracer:
    """The matrix 2-norm (largest singular value), -2 (smallest) and nuclear
    norm (their sum) over two axes, in the user's order as NumPy takes them."""
    rows, cols = (x.ndim - 2, x.ndim - 1) if axis is None else \
        tuple(normalize_axes(a, x.ndim)[0] for a in axis)
    s = svd(moveaxis(x, (rows, cols), (-2, -1)), compute_uv=False)
    result = {2: amax, -2: amin, "nuc": sum_}[ord](s, axis=-1)
    return expand_dims(result, tuple(sorted((rows, cols)))) if keepdims else result


@implements(np.linalg.cond)
def cond(x, p=None):
    """NumPy's definitions: the ratio of extreme singular values for p in
    (None, 2, -2), else norm(x, p) * norm(inv(x), p)."""
    a = lapack_operand(x)
    if p is None or p in (2, -2):
        s = svd(a, compute_uv=False)
        big, small = s[..., 0], s[..., -1]
        return small / big if p == -2 else big / small
    return norm(a, p, axis=(-2, -1)) * norm(inv(a), p, axis=(-2, -1))


@implements(np.tensordot)
def tensordot(a, b, axes=2):
    x, y = as_tracer(a), as_tracer(b)
    if isinstance(axes, int):
        ax_a, ax_b = tuple(range(x.ndim - axes, x.ndim)), tuple(range(axes))
    else:
        # pairs in the user's order (normalize_axes sorts)
        ax_a, ax_b = (tuple(normalize_axes(i, n)[0] for i in static_ints(v, "np.tensordot's axes"))
                      for v, n in zip(axes, (x.ndim, y.ndim)))
    if any(x.shape[i] != y.shape[j] for i, j in zip(ax_a, ax_b)) or len(ax_a) != len(ax_b):
        raise ValueError("shape-mismatch for sum")
    free_a = [d for d in range(x.ndim) if d not in ax_a]
    free_b = [d for d in range(y.ndim) if d not in ax_b]
    k = size_of(x, ax_a)
    lhs = reshape(transpose(x, (*free_a, *ax_a)), (size_of(x, free_a), k))
    rhs = reshape(transpose(y, (*ax_b, *free_b)), (k, size_of(y, free_b)))
    return reshape(matmul(lhs, rhs), tuple(x.shape[d] for d in free_a)
                   + tuple(y.shape[d] for d in free_b))


@implements(np.linalg.matrix_power)
def matrix_power(a, n):
    """Repeated squaring, as NumPy's (n static), of the inverse for n < 0."""
    x = as_tracer(a)
    (n,) = static_ints(n, "np.linalg.matrix_power's n")
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError("Last 2 dimensions of the array must be square")
    if n < 0:
        x, n = inv(x), -n
    if n == 0:
        return broadcast_to(as_tracer(np.eye(x.shape[-1], dtype=x.dtype)), x.shape) + 0
    result, square = None, x
    while n:
        if n & 1:
            result = square if result is None else matmul(result, square)
        n >>= 1
        if n:
            square = matmul(square, square)
    return result


@implements(np.linalg.multi_dot)
def multi_dot(arrays, *, out=None):
    """The products in the cheapest order (NumPy's: its cost formula for three
    matrices, its dynamic programme for more); a first or last vector as a
    row or column."""
    if out is not None:
        raise unsupported("np.linalg.multi_dot(out=)")
    xs = [as_tracer(a) for a in arrays]
    if len(xs) < 2:
        raise ValueError(f"Expecting at least two arrays.{at(user_location())}")
    if len(xs) == 2:
        return dot(*xs)
    first, last = xs[0].ndim, xs[-1].ndim
    xs[0] = reshape(xs[0], (1, -1)) if first == 1 else xs[0]
    xs[-1] = reshape(xs[-1], (-1, 1)) if last == 1 else xs[-1]
    for x in xs:
        if x.ndim != 2:
            raise np.linalg.LinAlgError(f"{x.ndim}-dimensional array given. Array must be "
                                        f"two-dimensional{at(user_location())}")
    result = _chain(xs, _chain_order([x.shape for x in xs]), 0, len(xs) - 1)
    if first == 1 and last == 1:
        return new_tracer(result[0, 0].value, scalar=True)
    return ravel(result) if 1 in (first, last) else result


def _chain_order(shapes: list[tuple[int, int]]) -> dict:
    """{(i, j): the k after which the product of matrices i..j splits}."""
    n = len(shapes)
    if n == 3:  # NumPy's own rule for three (equal costs: A (BC))
        (a0, a1), (c0, c1) = shapes[0], shapes[2]
        return {(0, 2): 1 if a0 * c0 * (a1 + c1) < a1 * c1 * (a0 + c0) else 0}
    dims = [shape[0] for shape in shapes] + [shapes[-1][1]]
    cost, split = {(i, i): 0 for i in range(n)}, {}
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i, j] = np.inf
            for k in range(i, j):
                q = cost[i, k] + cost[k + 1, j] + dims[i] * dims[k + 1] * dims[j + 1]
                if q < cost[i, j]:
                    cost[i, j], split[i, j] = q, k
    return split


def _chain(xs: list[Tracer], split: dict, i: int, j: int) -> Tracer:
    if i == j:
        return xs[i]
    k = split.get((i, j), i)  # (two matrices: one way)
    return matmul(_chain(xs, split, i, k), _chain(xs, split, k + 1, j))


@implements(np.linalg.tensorsolve)
def tensorsolve(a, b, axes=None):
    """solve of a reshaped to a square matrix, as NumPy's."""
    x, y = as_tracer(a), as_tracer(b)
    if axes is not None:
        moved = [d for d in range(x.ndim) if d not in static_ints(axes, "axes")]
        x = transpose(x, (*moved, *static_ints(axes, "axes")))
    shape = x.shape[y.ndim:]
    count = int(np.prod(shape, dtype=np.int64))
    if x.aval.size != count ** 2:
        raise np.linalg.LinAlgError(f"Input arrays must satisfy the requirement "
                                    f"prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])"
                                    f"{at(user_location())}")
    return reshape(solve(reshape(x, (count, count)), ravel(y)), shape)


@implements(np.linalg.tensorinv)
def tensorinv(a, ind=2):
    x = as_tracer(a)
    (ind,) = static_ints(ind, "np.linalg.tensorinv's ind")
    if ind <= 0:
        raise ValueError(f"Invalid ind argument.{at(user_location())}")
    rows = int(np.prod(x.shape[ind:], dtype=np.int64))
    return reshape(inv(reshape(x, (rows, -1))), x.shape[ind:] + x.shape[:ind])


@implements(np.linalg.solve)
def solve(a, b):
    """NumPy 2's rule: b is a vector (a stack of them, shaped like a's rows)
    when b.ndim == 1, else a stack of matrices; the stacks broadcast."""
    x, y = lapack_operand(a), lapack_operand(b)
    dtype = np.result_type(x.dtype, y.dtype)
    x, y = astype(x, dtype, copy=False), astype(y, dtype, copy=False)
    ops.check_square_stack(x.aval, "np.linalg.solve")  # before reading its shape
    if y.ndim == 1:
        if y.shape[0] != x.shape[-1]:
            raise ValueError(f"solve: Input operand 1 has a mismatch in its core "
                             f"dimension 0, with gufunc signature (m,m),(m)->(m) "
                             f"(size {y.shape[0]} is different from {x.shape[-1]})")
        return emit(ops.solve, [x, broadcast_to(y, x.shape[:-1])], scalar=False)
    stack = ops.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    x = broadcast_to(x, stack + x.shape[-2:])
    y = broadcast_to(y, stack + y.shape[-2:])
    return emit(ops.solve, [x, y], scalar=False)


@implements(np.linalg.inv)
def inv(a):
    return emit(ops.inv, [lapack_operand(a)], scalar=False)


@implements(np.linalg.det)
def det(a):
    return emit(ops.det, [lapack_operand(a)])


_SLOGDET_RESULT = type(np.linalg.slogdet(np.eye(1)))  # NumPy's (sign, logabsdet) tuple


@implements(np.linalg.slogdet)
def slogdet(a):
    both = emit(ops.slogdet, [lapack_operand(a)], scalar=False)
    scalar = both.ndim == 1
    sign, logdet = both[..., 0], both[..., 1]
    if logdet.dtype.kind == "c":  # packed in the complex dtype: log|det| is real
        logdet = real(logdet)
    if scalar:  # NumPy returns scalars for one matrix
        sign, logdet = (new_tracer(v.value, scalar=True) for v in (sign, logdet))
    return _SLOGDET_RESULT(sign, logdet)


@implements(np.linalg.cholesky)
def cholesky(a, upper=False):
    lower = emit(ops.cholesky, [lapack_operand(a)], scalar=False)
    return swapaxes(lower, -1, -2) if upper else lower


@implements(np.einsum)
def einsum(*operands, optimize=False, dtype=None, casting="safe", **kwargs):
    """Explicit or implicit subscripts, or the operand-list form; an ellipsis
    names the broadcast axes, a letter repeated in one operand its diagonal;
    ``dtype=`` casts the operands first, under ``casting``'s rule. Two
    operands whose shared letters are all summed are a tensordot (one BLAS
    product); anything else is a broadcast product summed over the dropped
    letters, which fuses into one loop nest."""
    if kwargs:
        raise not_lowered(f"np.einsum({', '.join(f'{k}=' for k in kwargs)})")
    terms, output, xs = _einsum_terms(operands)
    if dtype is not None:
        xs = [_einsum_cast(x, i, np.dtype(dtype), casting) for i, x in enumerate(xs)]
    # Letters an operand alone has and the output drops are summed first.
    for i, (term, x) in enumerate(zip(terms, xs)):
        alone = [d for d, c in enumerate(term) if c not in output and
                 sum(c in t for t in terms) == 1]
        if alone:
            xs[i] = sum_(x, tuple(alone))
            terms[i] = "".join(c for d, c in enumerate(term) if d not in alone)
    shared = [c for c in terms[0] if len(terms) == 2 and c in terms[1]]
    if len(xs) == 2 and not (set(shared) & set(output)) and all(  # (else size 1 broadcasts)
            xs[0].shape[terms[0].index(c)] == xs[1].shape[terms[1].index(c)] for c in shared):
        product = tensordot(xs[0], xs[1], ([terms[0].index(c) for c in shared],
                                           [terms[1].index(c) for c in shared]))
        have = [c for c in terms[0] + terms[1] if c not in shared]
        if not have:
            return sum_(product)  # a 0-d result is a NumPy scalar
        return transpose(product, tuple(have.index(c) for c in output))
    order = sorted(set("".join(terms)), key=lambda c: (c not in output, output.find(c), c))
    product = None
    for term, x in zip(terms, xs):
        aligned = transpose(x, tuple(term.index(c) for c in order if c in term)) if term \
            else x
        aligned = reshape(aligned, tuple(x.shape[term.index(c)] if c in term else 1
                                         for c in order))
        product = aligned if product is None else product * aligned
    if not output:
        return sum_(product)  # a 0-d result is a NumPy scalar
    dropped = tuple(range(len(output), len(order)))
    return sum_(product, dropped) if dropped else product


# NumPy's letters for the integers of the operand-list form: 0-25 A-Z, 26-51 a-z
_SUBLIST_LETTERS = string.ascii_uppercase + string.ascii_lowercase
_NO_ELLIPSIS = ("{} has more dimensions than subscripts given in einstein sum, but no '...' "
                "ellipsis provided to broadcast the extra dimensions.")


def _einsum_terms(operands: tuple) -> tuple[list[str], str, list[Tracer]]:
    """The subscripts of each operand and of the output, one letter per axis
    (ellipses spelled out, repeated letters taken as diagonals)."""
    if operands and isinstance(operands[0], str):
        subscripts, xs = operands[0].replace(" ", ""), list(operands[1:])
        inputs, arrow, output = subscripts.partition("->")
        terms = inputs.split(",")
        explicit = bool(arrow)
    else:  # einsum(op0, sublist0, op1, sublist1, ..., [sublist_out])
        xs, sublists = list(operands[0::2]), list(operands[1::2])
        explicit = len(sublists) < len(xs)
        output = _sublist_term(xs.pop()) if explicit else ""
        terms = [_sublist_term(sub) for sub in sublists]
    if len(terms) != len(xs):  # (NumPy's words, the other way round)
        raise _einsum_error(f"{'fewer' if len(xs) > len(terms) else 'more'} operands provided "
                         f"to einstein sum function than specified in the subscripts string")
    for i, term in enumerate(terms):
        _check_letters(term, i)
    xs = [as_tracer(v) for v in xs]
    terms, output = _spell_out_ellipses(terms, output, explicit, xs)
    for c in output:
        if output.count(c) > 1:
            raise _einsum_error(f"einstein sum subscripts string includes output subscript "
                             f"{c!r} multiple times")
        if not any(c in t for t in terms):
            raise _einsum_error(f"einstein sum subscripts string included output subscript "
                             f"{c!r} which never appeared in an input")
    for i, (term, x) in enumerate(zip(terms, xs)):
        terms[i], xs[i] = _take_diagonals(term, x)
    return terms, output, xs


def _einsum_cast(x: Tracer, i: int, dtype: np.dtype, casting: str) -> Tracer:
    if not np.can_cast(x.dtype, dtype, casting):
        raise TypeError(f"Iterator operand {i} dtype could not be cast from {x.dtype!r} to "
                        f"{dtype!r} according to the rule {casting!r}{at(user_location())}")
    return astype(x, dtype) if x.dtype != dtype else x


def _einsum_error(message: str) -> ValueError:
    return ValueError(message + at(user_location()))


def _check_letters(term: str, i: int) -> None:
    for c in term.replace("...", ""):
        if c == ".":
            raise _einsum_error(f"einstein sum subscripts string contains a '.' that is not "
                             f"part of an ellipsis ('...') in operand {i}")
        if c not in _SUBLIST_LETTERS:
            raise _einsum_error(f"invalid subscript {c!r} in einstein sum subscripts string, "
                             f"subscripts must be letters")
    if term.count("...") > 1:
        raise _einsum_error(f"einstein sum subscripts string contains a '.' that is not part "
                         f"of an ellipsis ('...') in operand {i}")


def _sublist_term(sublist) -> str:
    letters = []
    for k in sublist:
        if k is Ellipsis:
            letters.append("...")
        elif not 0 <= operator.index(k) < len(_SUBLIST_LETTERS):
            raise _einsum_error("subscript is not within the valid range [0, 52)")
        else:
            letters.append(_SUBLIST_LETTERS[k])
    return "".join(letters)


def _spell_out_ellipses(terms: list[str], output: str, explicit: bool,
                        xs: list[Tracer]) -> tuple[list[str], str]:
    """Each ``...`` as letters no subscript uses, aligned from the right as
    broadcasting aligns axes; an implicit output puts them first."""
    used = set("".join(terms) + output)
    free = [c for c in _SUBLIST_LETTERS if c not in used]
    counts = []
    for i, (term, x) in enumerate(zip(terms, xs)):
        named = len(term.replace("...", ""))
        if named > x.ndim:
            raise _einsum_error(f"einstein sum subscripts string contains too many "
                                f"subscripts for operand {i}")
        if "..." not in term and named != x.ndim:
            raise _einsum_error(_NO_ELLIPSIS.format("operand"))
        counts.append(x.ndim - named if "..." in term else 0)
    broadcast = "".join(free[:max(counts, default=0)])
    terms = [term.replace("...", broadcast[len(broadcast) - k:]) for term, k in
             zip(terms, counts)]
    if explicit:
        if broadcast and "..." not in output:
            raise _einsum_error(_NO_ELLIPSIS.format("output"))
        return terms, output.replace("...", broadcast)
    letters = "".join(terms)
    singles = sorted(c for c in set(letters) if letters.count(c) == 1 and c not in broadcast)
    return terms, broadcast + "".join(singles)


def _take_diagonals(term: str, x: Tracer) -> tuple[str, Tracer]:
    """A letter an operand repeats reads its diagonal (NumPy's 'ii->i')."""
    while repeated := next((c for c in term if term.count(c) > 1), None):
        i = term.index(repeated)
        j = term.index(repeated, i + 1)
        if x.shape[i] != x.shape[j]:
            raise _einsum_error(f"dimensions in single operand for collapsing index "
                             f"{repeated!r} don't match ({x.shape[i]} != {x.shape[j]})")
        x = diagonal(x, 0, i, j)
        term = "".join(c for k, c in enumerate(term) if k not in (i, j)) + repeated
    return term, x


@implements(np.cross)
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """3- or 2-vectors along the last axes, in NumPy's order of operations."""
    if axis is not None:
        axisa = axisb = axisc = axis
    x, y = (moveaxis(as_tracer(v), ax, -1) for v, ax in ((a, axisa), (b, axisb)))
    if x.shape[-1] not in (2, 3) or y.shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n"
                         "(dimension must be 2 or 3)")
    if x.shape[-1] != y.shape[-1]:
        raise unsupported("np.cross of a 2-vector with a 3-vector")
    a0, a1, b0, b1 = (getitem(v, (..., i)) for v in (x, y) for i in (0, 1))
    if x.shape[-1] == 2:
        return a0 * b1 - a1 * b0
    a2, b2 = getitem(x, (..., 2)), getitem(y, (..., 2))
    result = stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return moveaxis(result, -1, axisc)


@implements(np.trace, method="trace")
def trace_(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    if out is not None:
        raise not_lowered("np.trace(out=)")
    return sum_(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)
