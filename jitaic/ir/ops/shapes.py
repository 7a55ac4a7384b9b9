"""Shape ops: views that change shape or axis order, broadcasting."""

from __future__ import annotations

import numpy as np

from jitaic.errors import ShapeError
from jitaic.ir.ops.core import ELEMENTWISE, VIEW, broadcast_shapes, check_static, define
from jitaic.ir.types import TensorType

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
    offset = like.ndim - x.ndim  # a run-time length on either side is checked when it runs
    if offset < 0 or any(a not in (None, 1) and b is not None and a != b
                         for a, b in zip(x.shape, like.shape[offset:], strict=True)):
        raise ShapeError(f"cannot broadcast an array of shape {x.shape} "
                         f"to shape {like.shape}")
    return [TensorType(like.shape, x.dtype)]


# x broadcast to the shape of ``like`` (whose values are not read), run-time
# lengths included: the gradient of a reduction over an array whose length
# is known at run time only, where broadcast_to would need a static target
# shape, and a cotangent given back the length of its operand.
broadcast_like = define(
    "broadcast_like", _broadcast_like_infer,
    lambda x, like: np.broadcast_to(x, np.shape(like)).copy(),
    (ELEMENTWISE,),
                        complex=True)

