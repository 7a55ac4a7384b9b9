"""The named passes over the loop IR (``loop_ir.py``), run in order by
``run_passes`` (``LOOP_PASSES``): reductions chunked in NumPy's pairwise
order, a row loop's allocations hoisted out of it, scratch buffers placed
once per function or per thread, parallel loops bracketed by the thread
limit or made serial and split into per-thread blocks; then clean-ups
(repeated index arithmetic and checks merged, unread values dropped) and,
last, long functions' parallel loops outlined into helpers.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import fields

import numba
import numpy as np

from jitaic import config
from jitaic.lower.loop_ir import (
    Assign,
    Callback,
    Function,
    IndexCheck,
    Line,
    Loop,
    Raise,
    Reduce,
    Scratch,
    Stmt,
    Store,
    While,
    assigned_names,
    blocks_of,
    format_loops,
    names_read,
    texts_read,
    walk,
)

# Identifiers, in the order of their text.
_NAME = re.compile(r"[A-Za-z_]\w*")


def _may_raise(stmts: list) -> bool:
    return any(isinstance(s, Raise | IndexCheck)
               or (isinstance(s, Line) and s.text.startswith("raise ")) for s in walk(stmts))


# ---------------------------------------------------------------- passes

def chunk_reductions(fn: Function) -> None:
    """Lower each ``Reduce`` to loops: one chunk, filled and reduced; or a
    loop over chunks whose results are combined afterwards in the pairwise
    tree's order. A whole array's chunks run on the threads when there is
    enough work, each thread filling its own buffer."""
    fn.body = _chunked(fn.body, fn, False)


def _chunked(stmts: list, fn: Function, in_parallel: bool) -> list:
    out = []
    for stmt in stmts:
        inner = in_parallel or (isinstance(stmt, Loop) and stmt.parallel)
        for block in blocks_of(stmt):
            block[:] = _chunked(block, fn, inner)
        out += _chunk(stmt, fn, in_parallel) if isinstance(stmt, Reduce) else [stmt]
    return out


def pairwise_chunks(n: int, limit: int, complex_tree: bool = False
                    ) -> tuple[list[int], list[int]]:
    """Chunk lengths (subtrees of NumPy's pairwise sum of n elements, each at
    most ``limit``) and the postfix program combining their sums. NumPy
    splits a complex sum as a float sum of its 2n parts: at (n - n % 8) // 2."""
    lengths: list[int] = []
    program: list[int] = []

    def split(m: int) -> None:
        if m <= limit:
            lengths.append(m)
            program.append(1)
            return
        half = (m - m % 8) // 2 if complex_tree else m // 2 - m // 2 % 8
        split(half)
        split(m - half)
        program.append(0)

    split(n)
    return lengths, program


def _chunk(r: Reduce, fn: Function, in_parallel: bool) -> list:
    def reduced(count: str) -> str:
        return r.reduced.replace("{count}", count)

    if isinstance(r.length, str):
        lengths, program = [r.length], []
    elif r.pairwise:
        lengths, program = pairwise_chunks(r.length, r.chunk, r.complex_tree)
    else:
        lengths, program = [min(r.chunk, r.length - s)
                            for s in range(0, r.length, r.chunk)], []
    if len(lengths) == 1:
        out = [Scratch(r.buf, r.allocate)] if r.allocate else []
        out += _fill(r, fn, "0", str(r.length))
        return out + [Assign(r.acc, r.combine.format(r.acc, reduced(str(r.length))))]
    sizes = fn.constant(np.array(lengths, np.int64))
    sums = fn.fresh("chunk_sums")
    out = [Scratch(sums, f"rt.empty((np.int64({len(lengths)}),), {r.dtype})")] if program else []
    number, start, count = fn.fresh("chunk"), fn.fresh("c"), fn.fresh("n")
    parallel = bool(program and r.whole and fn.parallel_min_work is not None
                    and not in_parallel and r.length >= fn.parallel_min_work)
    starts = fn.constant(np.cumsum([0, *lengths[:-1]], dtype=np.int64))
    if r.allocate and not parallel:
        out.append(Scratch(r.buf, r.allocate))
    chunk = [Assign(count, f"{sizes}[{number}]"),
             # a no-op that tells LLVM the start is non-negative: without it every
             # load checks for a negative index and the element loop stays scalar (3x)
             Assign(start, f"np.maximum({starts}[{number}], 0)"),
             *_fill(r, fn, start, count),
             Store(sums, (number,), reduced(count)) if program else
             Assign(r.acc, r.combine.format(r.acc, reduced(count)))]
    per_thread = [Assign(r.buf, r.allocate)] if parallel else []
    out.append(Loop(number, len(lengths), chunk, parallel=parallel, blocks=parallel,
                    per_thread=per_thread))
    fn.uses_prange |= parallel
    if program:
        tree = fn.constant(np.array(program, np.int8))
        out.append(Assign(r.acc, r.combine.format(r.acc, f"rt.combine_postfix({sums}, {tree})")))
    return out


def _fill(r: Reduce, fn: Function, start: str, count: str) -> list:
    """Statements writing the row's elements ``start`` .. ``start + count``
    into ``r.buf[0:count]`` (none when the buffer is the row itself)."""
    if r.body is None:
        return []
    if r.leading:
        return _fill_segments(r, fn, start, count)
    if start == "0":
        return [Loop(r.var, count, [*r.body, Assign(f"{r.buf}[{r.var}]", r.element)])]
    j = fn.fresh("j")
    return [Loop(j, count, [Assign(r.var, f"{start} + {j}"), *r.body,
                            Assign(f"{r.buf}[{j}]", r.element)])]


def _fill_segments(r: Reduce, fn: Function, start: str, count: str) -> list:
    """``_fill`` of a flattened N-D array, a run within one row at a time: the
    inner loop reads along the last axis and vectorises."""
    index = [name for name, _ in r.leading]
    extents = [n for _, n in r.leading]
    at, end, row, col, run, offset, j = (fn.fresh(h) for h in
                                         ("f", "end", "row", "col", "run", "o", "j"))
    unravel = []
    for d in range(len(index) - 2, 0, -1):
        unravel += [Assign(index[d], f"{row} % {extents[d]}"),
                    Assign(row, f"{row} // {extents[d]}")]
    return [Assign(at, start), Assign(end, f"{start} + {count}"), While(f"{at} < {end}", [
        Assign(row, f"{at} // {extents[-1]}"),
        # maximum(.., 0): no-ops telling LLVM the indices are non-negative (vectorises)
        Assign(col, f"np.maximum({at} - {row} * {extents[-1]}, 0)"),
        Assign(offset, f"np.maximum({at} - {start}, 0)"),
        Assign(run, f"np.minimum({extents[-1]} - {col}, {end} - {at})"),
        *unravel,
        Assign(index[0], row),
        Loop(j, run, [Assign(index[-1], f"{col} + {j}"), *r.body,
                      Assign(f"{r.buf}[{offset} + {j}]", r.element)]),
        Line(f"{at} += {run}")])]


def hoist_row_allocations(fn: Function) -> None:
    """A row loop allocates its kernels' outputs once, before the rows."""
    fn.body = _hoisted(fn.body)


def _hoisted(stmts: list) -> list:
    out = []
    for stmt in stmts:
        for block in blocks_of(stmt):
            block[:] = _hoisted(block)
        if isinstance(stmt, Loop) and stmt.rows:
            out += _take_allocations(stmt.body)
        out.append(stmt)
    return out


def _take_allocations(stmts: list) -> list:
    taken = [s for s in stmts if isinstance(s, Assign) and s.allocates]
    stmts[:] = [s for s in stmts if not (isinstance(s, Assign) and s.allocates)]
    for stmt in stmts:
        for block in blocks_of(stmt):
            taken += _take_allocations(block)
    return taken


def place_scratch(fn: Function) -> None:
    """Scratch inside a parallel loop goes to the innermost such loop's
    per-thread statements (each thread needs its own, and an allocation per
    iteration cost ~3% of a row softmax); any other, to the prologue."""
    _place(fn.body, None, fn.prologue)


def _place(stmts: list, parallel: Loop | None, prologue: list) -> None:
    kept = []
    for stmt in stmts:
        if isinstance(stmt, Scratch):
            if parallel is None:
                prologue.append(stmt)
            elif not any(isinstance(s, Scratch) and (s.target, s.expr) == (stmt.target, stmt.expr)
                         for s in parallel.per_thread):
                parallel.per_thread.append(stmt)
            continue
        kept.append(stmt)
        inner = stmt if isinstance(stmt, Loop) and stmt.parallel else parallel
        for block in blocks_of(stmt):
            _place(block, inner, prologue)
    stmts[:] = kept


def limit_threads(fn: Function) -> None:
    """Bracket each parallel loop so that it runs on the CPUs other processes
    leave idle (lower/threads.py). A loop that may raise becomes serial:
    numba runs such a prange serially anyway, and the exception would skip
    restoring the thread count."""
    fn.body = _limited(fn.body, fn.fresh)


def _limited(stmts: list, fresh: Callable[[str], str]) -> list:
    out = []
    for stmt in stmts:
        if isinstance(stmt, Loop) and stmt.parallel:
            if _may_raise([stmt]):
                stmt.parallel = False
            else:
                saved = fresh("numba_threads")
                out += [Assign(saved, "rt.limit_threads()"), stmt,
                        Line(f"rt.restore_threads({saved})")]
                continue
        for block in blocks_of(stmt):  # (no prange runs inside a parallel loop)
            block[:] = _limited(block, fresh)
        out.append(stmt)
    return out


# Blocks that thread-blocked loops split their iterations into: numba's
# thread count (its prange gives each running thread one contiguous share of
# them). A literal, not numba.get_num_threads() (a call through a ctypes
# pointer), so generated code can be cached on disk; after
# numba.set_num_threads(k) each of k threads runs several blocks.
THREAD_BLOCKS = numba.config.NUMBA_NUM_THREADS


def split_by_thread(fn: Function) -> None:
    """A loop with per-thread statements (or marked ``blocks``) becomes one
    block of iterations per thread: ``for thread in prange(threads)``, the
    per-thread statements, then the thread's contiguous share of the
    iterations. Serial ones keep the shape (their per-thread statements then
    run once per block)."""
    fn.body = _split(fn.body, fn.fresh)


def _split(stmts: list, fresh: Callable[[str], str]) -> list:
    out = []
    for stmt in stmts:
        for block in blocks_of(stmt):
            block[:] = _split(block, fresh)
        if isinstance(stmt, Loop) and (stmt.per_thread or stmt.blocks):
            threads, thread = fresh("threads"), fresh("thread")
            first = f"{thread} * {stmt.stop} // {threads}"
            end = f"({thread} + 1) * {stmt.stop} // {threads}"
            inner = Loop(stmt.var, end, stmt.body, start=first)
            out += [Assign(threads, str(THREAD_BLOCKS)),
                    Loop(thread, threads, [*stmt.per_thread, inner], parallel=stmt.parallel)]
            continue
        out.append(stmt)
    return out


def _assigned_within(stmt: Stmt) -> set[str]:
    return {name for s in walk([stmt]) for name in assigned_names(s)}


def drop_repeated_index_checks(fn: Function) -> None:
    """Drop index checks that an earlier identical check already made: in the
    same block or an enclosing one, with neither the index nor the extent
    assigned since (nor anywhere in a loop entered since: its next iteration
    sees what its body assigns). A gradient checks the same loop index at
    every read and store of its replay: a Cholesky gradient's source lost 20%
    of its lines and half its numba compile time."""
    fn.body = _unrepeated(fn.body, [])


def _unrepeated(stmts: list, made: list[tuple[tuple, set[str]]]) -> list:
    made = list(made)  # the enclosing blocks' checks hold here; ours end with the block
    out = []
    for stmt in stmts:
        if isinstance(stmt, IndexCheck):
            key = (stmt.index, str(stmt.extent))
            if any(k == key for k, _ in made):
                continue
            made.append((key, {stmt.index, str(stmt.extent)}))
            out.append(stmt)
            continue
        if isinstance(stmt, Loop | While):  # the body's assignments, before the body
            changed = _assigned_within(stmt)
            made = [m for m in made if not m[1] & changed]
        for block in blocks_of(stmt):
            block[:] = _unrepeated(block, made)
        changed = _assigned_within(stmt)
        made = [m for m in made if not m[1] & changed]
        out.append(stmt)
    return out


def merge_repeated_index_arithmetic(fn: Function) -> None:
    """Drop a window's bounds (``rt.slice_range``) or a clamped first index
    (``np.maximum(first, 0)``) that an earlier identical assignment already
    computed, in the same block or an enclosing one with none of its inputs
    assigned since; later statements read the earlier variables. Each view
    of a window computes them, and a gradient's replay takes the same window
    of several arrays: 9 identical calls in one loop body of a Levinson
    recursion's gradient."""
    fn.body = _merged(fn.body, [], {})


_MERGEABLE = re.compile(r"rt\.slice_range\(|np\.maximum\([A-Za-z_]\w*, 0\)$")


def _merged(stmts: list, made: list[tuple[str, set[str], list[str]]],
            renames: dict[str, str]) -> list:
    made = list(made)  # the enclosing blocks' values hold here; ours end with the block
    out = []
    for stmt in stmts:
        _rename(stmt, renames)
        if isinstance(stmt, Assign) and stmt.pure and _MERGEABLE.match(stmt.expr):
            targets = [t.strip() for t in stmt.target.split(",")]
            earlier = next((names for expr, _, names in made if expr == stmt.expr), None)
            if earlier is not None and len(earlier) == len(targets):
                renames.update(zip(targets, earlier, strict=True))
                continue
            made.append((stmt.expr, set(_NAME.findall(stmt.expr)), targets))
            out.append(stmt)
            continue
        if isinstance(stmt, Loop | While):  # the body's assignments, before the body
            made = _still_valid(made, _assigned_within(stmt))
        for block in blocks_of(stmt):
            block[:] = _merged(block, made, renames)
        made = _still_valid(made, _assigned_within(stmt))
        out.append(stmt)
    return out


def _still_valid(made: list, changed: set[str]) -> list:
    return [m for m in made if not (m[1] | set(m[2])) & changed]


# Identifiers outside string literals (an error message may hold any word).
_TOKEN = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|[A-Za-z_]\w*")


def _rename(stmt: Stmt, renames: dict[str, str]) -> None:
    """Rename variables in ``stmt``'s own text (not its nested statements')."""
    if not renames:
        return
    nested = [id(block) for block in blocks_of(stmt)]
    for f in fields(stmt):
        value = getattr(stmt, f.name)
        if id(value) not in nested:
            setattr(stmt, f.name, _renamed(value, renames))


def _renamed(value: object, renames: dict[str, str]) -> object:
    if isinstance(value, str):
        return _TOKEN.sub(lambda m: renames.get(m.group(0), m.group(0)), value)
    if isinstance(value, tuple):
        return tuple(_renamed(v, renames) for v in value)
    if isinstance(value, list) and not any(isinstance(v, Stmt) for v in value):
        return [_renamed(v, renames) for v in value]
    return value


def drop_unread_values(fn: Function) -> None:
    """Drop pure assignments whose variable nothing reads: views that kernels
    read through their base array instead (``u[1 + i, j]``, not
    ``view[i, j]``). Each costs numba typing and lowering: a Thomas solve's
    gradient had 42 of them, a fifth of its compile time."""
    while True:
        read: Counter[str] = Counter()
        for stmt in (*walk(fn.prologue), *walk(fn.body)):
            for text in texts_read(stmt):
                read.update(_NAME.findall(text))
        for stmt in walk(fn.body):
            if isinstance(stmt, Callback):
                stmt.results = tuple((name if read[name] else None, kind)
                                     for name, kind in stmt.results)
        if not _drop_unread(fn.body, read):
            return



def _drop_unread(stmts: list, read: Counter[str]) -> bool:
    kept = [s for s in stmts if not (isinstance(s, Assign) and s.pure
                                     and not any(read[t] for t in _NAME.findall(s.target)))]
    dropped = len(kept) < len(stmts)
    stmts[:] = kept
    for stmt in stmts:
        for block in blocks_of(stmt):
            dropped |= _drop_unread(block, read)
    return dropped


# Serial statements a function holds besides its parallel loops from which on
# those loops become functions of their own (below, one function compiles
# faster: LLVM optimises an outlined loop twice, alone and linked in).
OUTLINE_FROM_STATEMENTS = 200


def outline_parallel_loops(fn: Function) -> None:
    """In a long function, each parallel loop (with the thread-count bracket
    around it) becomes a function of its own, compiled with numba's parallel
    pipeline, which the entry function calls. numba runs its parfor passes
    over the whole of a function that holds one prange, and they grow faster
    than the function: an ADI gradient of 1,100 lines with one parallel loop
    spent 15 s of its 21 s compile in them. The loop's text is unchanged: the
    helper's parameters and results have the names the entry uses."""
    if not fn.uses_prange or _serial_statements(fn.body) < OUTLINE_FROM_STATEMENTS:
        return
    fn.body = _outlined(fn.body, fn)
    fn.uses_prange = False


def _serial_statements(stmts: list) -> int:
    count = 0
    for stmt in stmts:
        if isinstance(stmt, Loop) and stmt.parallel:
            continue
        count += 1
        for block in blocks_of(stmt):
            count += _serial_statements(block)
    return count


def _outlined(stmts: list, fn: Function) -> list:
    out = []
    k = 0
    while k < len(stmts):
        stmt = stmts[k]
        if isinstance(stmt, Assign) and stmt.expr == "rt.limit_threads()":
            end = next(j for j in range(k, len(stmts)) if isinstance(stmts[j], Line)
                       and stmts[j].text == f"rt.restore_threads({stmt.target})")
            out.append(_call_outlined(stmts[k:end + 1], fn))
            k = end + 1
            continue
        for block in blocks_of(stmt):
            block[:] = _outlined(block, fn)
        out.append(stmt)
        k += 1
    return out


def _call_outlined(region: list, fn: Function) -> Stmt:
    """The call of ``region`` as a new helper: its parameters are the names it
    reads that the rest of the function assigns; its results, the names it
    assigns that the rest reads (a reduction's accumulator is both)."""
    inside = {id(s) for s in walk(region)}
    outside = [s for s in (*walk(fn.prologue), *walk(fn.body)) if id(s) not in inside]
    defined_outside = {*fn.params, *fn.constants} | {
        name for s in outside for name in assigned_names(s)}
    read_outside = {name for s in outside for name in names_read(s)}
    params = sorted({name for s in walk(region) for name in names_read(s)} & defined_outside)
    results = sorted({name for s in walk(region) for name in assigned_names(s)} & read_outside)
    name = fn.fresh("parallel_loop")
    body = [*region, Line(f"return ({''.join(r + ', ' for r in results)})")]
    fn.helpers.append(Function(name, params, body, fn.fresh, uses_prange=True))
    call = f"{name}({', '.join(params)})"
    return Assign(", ".join(results), call) if results else Line(call)


LOOP_PASSES: list[tuple[str, Callable[[Function], None]]] = [
    ("chunk_reductions", chunk_reductions),  # first: it makes loops and scratch
    ("hoist_row_allocations", hoist_row_allocations),
    ("place_scratch", place_scratch),
    ("limit_threads", limit_threads),  # before the split: the bracket encloses it
    ("split_by_thread", split_by_thread),
    ("merge_repeated_index_arithmetic", merge_repeated_index_arithmetic),
    ("drop_repeated_index_checks", drop_repeated_index_checks),
    ("drop_unread_values", drop_unread_values),
    ("outline_parallel_loops", outline_parallel_loops),  # last: it moves loops out
]


def run_passes(fn: Function) -> Function:
    """The loop passes in order, timing each (``fn.pass_seconds``) and logging
    the IR around those ``JITAIC_DUMP_IR`` names (``after:split_by_thread``;
    ``loops``: after the last one)."""
    for name, run in LOOP_PASSES:
        if config.dump_requested("before", name):
            config.debug_log().debug("loop IR before %s:\n%s", name, format_loops(fn))
        start = time.perf_counter()
        run(fn)
        fn.pass_seconds[name] = time.perf_counter() - start
        if config.dump_requested("after", name):
            config.debug_log().debug("loop IR after %s:\n%s", name, format_loops(fn))
    if "loops" in str(config.get("dump_ir")).split(","):
        config.debug_log().debug("loop IR of %s:\n%s", fn.name, format_loops(fn))
    return fn
