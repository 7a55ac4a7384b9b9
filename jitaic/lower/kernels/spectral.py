"""Fourier transforms: a plan per op, made while generating the code (its
arrays are constants of the function), then each lane along the last axis
transformed by the runtime's FFT (spectral.fft_into)."""

from __future__ import annotations

from jitaic.ir import ops
from jitaic.ir.graph import Node
from jitaic.lower import spectral
from jitaic.lower.codegen import Emitter, empty
from jitaic.lower.kernels.loops import dims, each_lane, lowering


@lowering(ops.fft)
def _fft(em: Emitter, node: Node) -> None:
    (x,) = node.inputs
    out = node.output
    name, work = em.define(out), em.fresh("work")
    real = x.type.dtype.kind == "f"
    plan = [em.constant_arg(a) for a in spectral.plan(x.type.shape[-1], real)]
    em.line(f"{name} = {empty(dims(em, x), out.dtype)}")
    em.line(f"{work} = np.empty(2 * {plan[1]}.shape[0], np.complex128)")
    with each_lane(em, x, x.type.ndim - 1) as lane:
        em.line(f"spectral.fft_into({em(x)}[{lane}], {name}[{lane}], {', '.join(plan)}, "
                f"{work}, {node.attrs['inverse']})")
