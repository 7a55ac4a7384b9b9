"""A cache of large array buffers, kept across calls.

A fresh array of tens of megabytes costs its page faults: the kernel maps and
zeroes every page at the first write, ~3 ms for 32 MB here even with huge
pages, as long as a fused pass over the data. NumPy's allocator and numba's
(malloc) give such blocks back to the system when they are freed, so a
function called in a loop pays the faults again on every call.

Generated code allocates its large arrays (outputs and temporaries of at
least ``MIN_BYTES``) through ``empty`` (``empty_at_run_time`` where the shape
is known when the code runs only): the block comes from
this cache when a freed block of the same size waits there, else from
malloc (with transparent huge pages). The array owns its block through a
numba MemInfo made by NRT's ``manage_memory``; when the last reference dies
(the caller dropped the result, or the call ended for a temporary), NRT calls
``_release``, which keeps the block for the next allocation of its size while
the cache holds fewer than ``SLOTS`` blocks and ``config.buffer_cache_mb`` in
all, and frees it otherwise. A block is handed out again only after NRT freed
it, so no live array ever shares memory with a new one; the cost is that up
to ``buffer_cache_mb`` of freed memory stays with the process
(``release_cached()`` gives it back).

``_release`` may run on any thread, with or without the GIL (a numba
function of the user's can drop the last reference), so the slots are taken
and filled with atomic compare-and-swap and the byte count with atomic adds.

Compiled code reaches this process's state, its destructor and libc by
symbol name (registered with LLVM at import), never by an address frozen
into the code, so code calling ``empty`` can be kept on disk
(``disk_cache.py``) and loaded by another process.
"""

from __future__ import annotations

import ctypes
import functools

import llvmlite.binding as llvm
import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array

from jitaic import config

# Arrays of at least this many bytes go through the cache (and get huge pages,
# as NumPy's allocator gives them).
MIN_BYTES = 1 << 22
SLOTS = 8
# Each block's data is 64-byte aligned and preceded by its size (at data - 64)
# and malloc's pointer (at data - 56).
_HEADER = 64
_HUGE = 1 << 21
_MADV_HUGEPAGE = 14

_libc = ctypes.CDLL(None)
_malloc = _libc.malloc
_malloc.argtypes, _malloc.restype = [ctypes.c_size_t], ctypes.c_void_p
_free = _libc.free
_free.argtypes, _free.restype = [ctypes.c_void_p], None

# _STATE[0]: bytes cached now; _STATE[1]: the limit in bytes; _STATE[2 + k]:
# the data address of the block in slot k, 0 when empty. Compiled code reaches
# it by address (a global array would be frozen into the code as a constant).
# It is malloc'd and never freed: arrays may die during interpreter shutdown,
# after this module's objects, and their destructor still writes here.
_STATE_ADDR = _malloc(8 * (2 + SLOTS))
ctypes.memset(_STATE_ADDR, 0, 8 * (2 + SLOTS))
_STATE = np.ctypeslib.as_array((ctypes.c_int64 * (2 + SLOTS)).from_address(_STATE_ADDR))
# Each block counts as allocated for tracemalloc while an array holds it (as
# numba's PyMem_RawMalloc'd arrays do), in a domain of its own; both calls
# return at once when tracemalloc is not tracing.
_TRACE_DOMAIN = 0x6A1C
_HAS_MADVISE = hasattr(_libc, "madvise")  # without it: no huge pages, nothing else changes

_STATE_SYMBOL = "jitaic_buffer_state"
llvm.add_symbol(_STATE_SYMBOL, _STATE_ADDR)
_I64, _VOIDPTR = ir.IntType(64), cgutils.voidptr_t


def _external(builder, name: str, fnty: ir.FunctionType):
    return cgutils.get_or_insert_function(builder.module, fnty, name)


# --- atomics on _STATE cells, by symbol ----------------------------------------------

def _cell(builder, index):
    module = builder.module
    state = module.globals.get(_STATE_SYMBOL)
    if state is None:
        state = ir.GlobalVariable(module, ir.ArrayType(_I64, 2 + SLOTS), _STATE_SYMBOL)
        state.linkage = "external"
    return builder.gep(state, [ir.Constant(ir.IntType(32), 0), index])


@intrinsic
def _load(typingctx, index):
    if not isinstance(index, types.Integer):
        return None

    def codegen(ctx, builder, sig, args):
        return builder.load_atomic(_cell(builder, args[0]), "monotonic", 8)
    return types.int64(index), codegen


@intrinsic
def _add(typingctx, index, delta):
    """Atomically adds delta to cell index; returns the old value."""
    if not (isinstance(index, types.Integer) and delta == types.int64):
        return None

    def codegen(ctx, builder, sig, args):
        return builder.atomic_rmw("add", _cell(builder, args[0]), args[1], "seq_cst")
    return types.int64(index, delta), codegen


@intrinsic
def _swap_if(typingctx, index, expected, new):
    """Atomically: if cell index holds expected, store new. True if it did."""
    if not (isinstance(index, types.Integer) and expected == new == types.int64):
        return None

    def codegen(ctx, builder, sig, args):
        pair = builder.cmpxchg(_cell(builder, args[0]), args[1], args[2], "seq_cst", "seq_cst")
        return builder.extract_value(pair, 1)
    return types.boolean(index, expected, new), codegen


@intrinsic
def _read_int(typingctx, address):
    if address != types.int64:
        return None

    def codegen(ctx, builder, sig, args):
        return builder.load(builder.inttoptr(args[0], ir.IntType(64).as_pointer()))
    return types.int64(address), codegen


@intrinsic
def _write_int(typingctx, address, value):
    if not (address == value == types.int64):
        return None

    def codegen(ctx, builder, sig, args):
        builder.store(args[1], builder.inttoptr(args[0], ir.IntType(64).as_pointer()))
        return ctx.get_dummy_value()
    return types.none(address, value), codegen


@intrinsic
def _as_int(typingctx, pointer):
    if pointer != types.voidptr:
        return None

    def codegen(ctx, builder, sig, args):
        return builder.ptrtoint(args[0], ir.IntType(64))
    return types.int64(pointer), codegen


@intrinsic
def _itemsize(typingctx, dtype):
    if not isinstance(dtype, types.NumberClass):
        return None
    size = np.dtype(str(dtype.instance_type)).itemsize
    return types.int64(dtype), lambda ctx, builder, sig, args: ir.Constant(ir.IntType(64), size)


def c_call(name: str, restype, argtypes):
    """(signature, codegen) of an intrinsic calling the C function ``name``
    (libc, libpython) by name: int64 arguments and result (none for void),
    pointers passed as int64 addresses."""
    void = isinstance(restype, ir.VoidType)

    def codegen(ctx, builder, sig, values):
        fnty = ir.FunctionType(restype, argtypes)
        cast = [builder.inttoptr(v, t) if isinstance(t, ir.PointerType) else
                builder.trunc(v, t) if t.width < 64 else v
                for v, t in zip(values, argtypes, strict=True)]
        result = builder.call(_external(builder, name, fnty), cast)
        if void:
            return ctx.get_dummy_value()
        if isinstance(restype, ir.PointerType):
            return builder.ptrtoint(result, _I64)
        return builder.sext(result, _I64) if restype.width < 64 else result

    return (types.none if void else types.int64)(*[types.int64] * len(argtypes)), codegen


@intrinsic
def _malloc_c(typingctx, nbytes):
    return c_call("malloc", _VOIDPTR, [_I64])


@intrinsic
def _free_c(typingctx, address):
    return c_call("free", ir.VoidType(), [_VOIDPTR])


@intrinsic
def _madvise_c(typingctx, address, length, advice):
    return c_call("madvise", ir.IntType(32), [_VOIDPTR, _I64, ir.IntType(32)])


@intrinsic
def _track_c(typingctx, domain, address, nbytes):
    return c_call("PyTraceMalloc_Track", ir.IntType(32), [ir.IntType(32), _I64, _I64])


@intrinsic
def _untrack_c(typingctx, domain, address):
    return c_call("PyTraceMalloc_Untrack", ir.IntType(32), [ir.IntType(32), _I64])


# --- the cache -----------------------------------------------------------------------

def _release(data):
    """NRT's destructor of every cached array: keep the block or free it."""
    address = _as_int(data)
    nbytes = _read_int(address - _HEADER)
    _untrack_c(_TRACE_DOMAIN, address)
    if _add(0, nbytes) + nbytes <= _load(1):
        for k in range(SLOTS):
            if _swap_if(2 + k, 0, address):
                return
    _add(0, -nbytes)
    _free_c(_read_int(address - _HEADER + 8))


_RELEASE_SYMBOL = "jitaic_buffer_release"
_RELEASE_SIGNATURE = types.void(types.voidptr)


@functools.cache
def _register_release() -> object:
    """Compile (or load) the destructor and register it by name, once, before
    the first kernel that wraps a block compiles: not at import, where loading
    it started LLVM (~0.1 s of ``import jitaic``)."""
    compiled = numba.cfunc(_RELEASE_SIGNATURE, cache=True)(_release)
    llvm.add_symbol(_RELEASE_SYMBOL, compiled.address)
    return compiled  # kept alive by the cache


@numba.njit(cache=True)
def _take_slot(k, address):
    """Empty slot k if it still holds address (atomically); True if this call did."""
    if _swap_if(2 + k, address, 0):
        _add(0, -_read_int(address - _HEADER))
        return True
    return False


@numba.njit(cache=True)
def _take(nbytes):
    """The data address of a cached block of nbytes, removed from the cache; 0 if none."""
    for k in range(SLOTS):
        address = _load(2 + k)
        if address != 0 and _read_int(address - _HEADER) == nbytes and _take_slot(k, address):
            return address
    return 0


@numba.njit(cache=True)
def _allocate(nbytes):
    address = _take(nbytes)
    if address == 0:
        address = _fresh(nbytes)
    _track_c(_TRACE_DOMAIN, address, nbytes)
    return address


@numba.njit(cache=True)
def _fresh(nbytes):
    base = _malloc_c(nbytes + 2 * _HEADER)
    if base == 0:
        raise MemoryError("jitaic could not allocate an array buffer")
    address = (base + 2 * _HEADER - 1) & ~(_HEADER - 1)
    _write_int(address - _HEADER, nbytes)
    _write_int(address - _HEADER + 8, base)
    if _HAS_MADVISE:   # 2 MiB pages over the block's whole 2 MiB runs
        start = (address + _HUGE - 1) & ~(_HUGE - 1)
        end = (address + nbytes) & ~(_HUGE - 1)
        if end > start:
            _madvise_c(start, end - start, _MADV_HUGEPAGE)
    return address


@numba.njit(cache=True)
def huge_pages(a):
    """Ask for 2 MiB pages over a fresh array's whole 2 MiB blocks (before
    anything touches them), as NumPy does for big arrays; a failed advice only
    costs speed. madvise is called by name: kernels calling this stay
    cacheable (a ctypes pointer would not)."""
    if _HAS_MADVISE:
        start = (a.ctypes.data + _HUGE - 1) & ~(_HUGE - 1)
        end = (a.ctypes.data + a.nbytes) & ~(_HUGE - 1)
        if end > start:
            _madvise_c(start, end - start, _MADV_HUGEPAGE)
    return a


@intrinsic
def _wrap(typingctx, address, shape, dtype):
    """A C-contiguous array over the block at address, owning it through a
    MemInfo whose destructor is _release."""
    if not (address == types.int64 and isinstance(shape, types.UniTuple)
            and isinstance(dtype, types.NumberClass)):
        return None
    arrty = types.Array(dtype.instance_type, shape.count, "C")

    def codegen(ctx, builder, sig, args):
        address, shape_value, _ = args
        voidptr = cgutils.voidptr_t
        # NRT's API table: manage_memory(data, dtor) is its third entry.
        manage_ty = ir.FunctionType(voidptr, [voidptr, voidptr])
        table = builder.bitcast(ctx.nrt.get_nrt_api(builder), manage_ty.as_pointer().as_pointer())
        manage = builder.load(builder.gep(table, [ir.Constant(ir.IntType(32), 2)]))
        data = builder.inttoptr(address, voidptr)
        release = _external(builder, _RELEASE_SYMBOL, ir.FunctionType(ir.VoidType(), [voidptr]))
        meminfo = builder.call(manage, [data, builder.bitcast(release, voidptr)])
        with builder.if_then(cgutils.is_null(builder, meminfo), likely=False):
            ctx.call_conv.return_user_exc(builder, MemoryError,
                                          ("jitaic could not allocate an array",))
        itemsize = ctx.get_constant(types.intp, np.dtype(str(dtype.instance_type)).itemsize)
        dims = cgutils.unpack_tuple(builder, shape_value, shape.count)
        strides = [itemsize]
        for d in reversed(dims[1:]):
            strides.append(builder.mul(strides[-1], d))
        ary = make_array(arrty)(ctx, builder)
        intp = ctx.get_value_type(types.intp)
        populate_array(ary, data=builder.bitcast(data, ctx.get_data_type(arrty.dtype).as_pointer()),
                       shape=cgutils.pack_array(builder, dims, ty=intp),
                       strides=cgutils.pack_array(builder, strides[::-1], ty=intp),
                       itemsize=itemsize, meminfo=meminfo)
        return ary._getvalue()
    return arrty(address, shape, dtype), codegen


@numba.njit(cache=True)
def empty(shape, dtype):
    """np.empty(shape, dtype) (C order, dtype a NumPy scalar type) with its
    block from the cache."""
    nbytes = _itemsize(dtype)
    for d in shape:
        nbytes *= d
    return _wrap(_allocate(max(nbytes, 1)), shape, dtype)


@numba.njit(cache=True)
def empty_at_run_time(shape, dtype):
    """``empty`` for a shape known only when the code runs: a small array
    from np.empty, a big one from the cache."""
    nbytes = _itemsize(dtype)
    for d in shape:
        nbytes *= d
    if nbytes < MIN_BYTES:
        return np.empty(shape, dtype)
    return _wrap(_allocate(nbytes), shape, dtype)


def set_limit() -> None:
    """Before code compiles: read config.buffer_cache_mb into the cache's
    limit, and register the destructor compiled code names."""
    _register_release()
    _STATE[1] = int(config.get("buffer_cache_mb")) << 20


_STATE[1] = int(config.get("buffer_cache_mb")) << 20


def cached_bytes() -> int:
    return int(_STATE[0])


def release_cached() -> int:
    """Free every cached block (none is in use); returns the bytes given back."""
    freed = 0
    for k in range(SLOTS):
        address = int(_STATE[2 + k])
        if address and _take_slot(k, address):
            nbytes = ctypes.c_int64.from_address(address - _HEADER).value
            _free(ctypes.c_int64.from_address(address - _HEADER + 8).value)
            freed += nbytes
    return freed
