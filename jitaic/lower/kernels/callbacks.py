"""NumPy called back from compiled code: one object-mode block per call
(``ops.numpy_call``), rendering the call with its literal arguments."""

from __future__ import annotations

import keyword

import numba

from jitaic.errors import CompileError, at
from jitaic.ir import ops
from jitaic.ir.graph import Node
from jitaic.ir.ops.callbacks import INPUT
from jitaic.ir.types import TensorType
from jitaic.lower import loop_ir
from jitaic.lower.codegen import Emitter
from jitaic.lower.kernels.loops import lowering


def numba_type(t: TensorType) -> str:
    """The type an object-mode block declares, as a string literal: a
    C-contiguous array, or a scalar for a 0-d value."""
    scalar = "boolean" if t.dtype.kind == "b" else str(numba.from_dtype(t.dtype))
    if not t.ndim:
        return repr(scalar)
    return repr(f"{scalar}[{', '.join([':'] * (t.ndim - 1) + ['::1'])}]")


@lowering(ops.numpy_call, ops.random_call)
def _numpy_call(em: Emitter, node: Node) -> None:
    def argument(entry: tuple) -> str:
        kind, what = entry
        return em(node.inputs[what]) if kind == INPUT else what  # a literal's source

    function = "np" + node.attrs["function"][len("numpy"):]
    arguments = [argument(e) for e in node.attrs["args"]]
    for name, e in node.attrs["kwargs"]:  # checked when traced; text turns into code here
        if not name.isidentifier() or keyword.iskeyword(name):
            raise CompileError(f"keyword {name!r} of a NumPy callback is not a Python name")
        arguments.append(f"{name}={argument(e)}")
    kinds = tuple((v.dtype.name, v.shape) for v in node.outputs)
    results = tuple((em.define(v), numba_type(v.type)) for v in node.outputs)
    call = f"{function}({', '.join(arguments)})"
    where = at(node.loc)
    em.emit(loop_ir.Callback(results, f"rt.from_numpy({call}, {function!r}, {where!r}, "
                                      f"{kinds!r})"))
