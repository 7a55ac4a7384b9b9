"""The loop-level IR: a generated function as statements, before it is text.

Lowering rules build it through the Emitter (``codegen.py``); named passes
rewrite it (``LOOP_PASSES``: a row loop's allocations hoisted out of it,
scratch buffers placed once per function or per thread, parallel loops
bracketed by the thread limit or made serial, split into per-thread blocks,
repeated index checks dropped); ``render`` turns it into the Python source
numba compiles, one rule per statement kind (``RENDER``), and
``format_loops`` prints it for people (``JITAIC_DUMP_IR=loops``, or
``after:<pass>``).

Statements and loops are objects; expressions are source text (what the
scalar rules of ``kernels/scalar.py`` write). A ``Line`` is a statement no
other kind models yet: the passes treat it as opaque (reading the names it
assigns from its text) and render it as it is.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields

import numba
import numpy as np

from jitaic import config

Extent = int | str  # a static length, or source text for a run-time one


@dataclass(eq=False)
class Line:
    """A statement as source text (one line)."""
    text: str


@dataclass(eq=False)
class Comment:
    text: str  # already safe to follow '#' (codegen.comment_text)


@dataclass(eq=False)
class Assign:
    """``target = expr``; ``allocates``: a kernel's output array, which a row
    loop allocates once before its rows; ``pure``: an expression with no
    effect (a view, an element), dropped where nothing reads it
    (``drop_unread_values``)."""
    target: str
    expr: str
    allocates: bool = False
    pure: bool = False


@dataclass(eq=False)
class Scratch:
    """A fixed-size scratch buffer: allocated once per call at the top of the
    function, or once per thread inside a parallel loop (``place_scratch``)."""
    target: str
    expr: str


@dataclass(eq=False)
class Store:
    array: str
    index: tuple[str, ...]
    expr: str


@dataclass(eq=False)
class Raise:
    exception: str


@dataclass(eq=False)
class Callback:
    """``call`` run by the Python interpreter (numba's object mode); it
    returns a tuple, unpacked into ``results``: (variable, numba type) pairs,
    the type as source (a string literal, or a global naming a numba type),
    the variable None where nothing reads it (``drop_unread_values``: numba
    refuses a declared result that is not read after the block)."""
    results: tuple[tuple[str | None, str], ...]
    call: str


@dataclass(eq=False)
class IndexCheck:
    """NumPy's IndexError where ``index`` (negative counts from the end) is
    outside an axis of ``extent`` elements; ``where`` names the user's line."""
    index: str
    extent: Extent
    axis: int
    where: str


@dataclass(eq=False)
class Loop:
    """``for var in range(start, stop, step)``. ``parallel``: a numba prange
    (its iterations are independent). ``per_thread``: statements each thread
    runs once before its iterations; with them, or with ``blocks``, the
    loop runs as one block of iterations per thread (``split_by_thread``).
    ``rows``: a row loop, whose kernels' output allocations go before it."""
    var: str
    stop: Extent
    body: list = field(default_factory=list)
    start: Extent = 0
    step: Extent = 1
    parallel: bool = False
    blocks: bool = False
    rows: bool = False
    per_thread: list = field(default_factory=list)


@dataclass(eq=False)
class If:
    test: str
    body: list = field(default_factory=list)
    orelse: list | None = None


@dataclass(eq=False)
class While:
    test: str
    body: list = field(default_factory=list)


@dataclass(eq=False)
class Reduce:
    """Fold a row into ``acc`` through a buffer: the row's elements (``var``
    in range(``length``); ``body`` computes the element ``element``) are
    written into ``buf``, at most ``chunk`` at a time, and each chunk is
    reduced by a runtime helper (``reduced``, with ``{count}`` for the
    chunk's length), then combined (``combine``: ``{0}`` the accumulator,
    ``{1}`` the chunk's result). Float sums chunk along NumPy's pairwise tree
    (``pairwise``; ``complex_tree``: NumPy's tree of complex sums, which splits
    differently), so that they are NumPy's bit for bit. ``chunk_reductions``
    lowers it to loops.

    ``body`` None: ``buf`` already holds the row (one chunk). ``leading``:
    the row is a whole N-D array (every axis's index and extent), flattened.
    ``allocate``: the expression allocating ``buf``, for the pass to place
    (None: the buffer exists). ``whole``: the reduction makes the whole
    result, so its chunks may run on threads, each with its own buffer."""
    acc: str
    combine: str
    reduced: str
    pairwise: bool
    dtype: str  # the accumulator's scalar type, as source (np.float64)
    var: str
    length: Extent
    chunk: Extent
    buf: str
    element: str = ""
    body: list | None = None
    leading: list | None = None
    allocate: str | None = None
    whole: bool = False
    complex_tree: bool = False


Stmt = (Line | Comment | Assign | Scratch | Store | Raise | IndexCheck | Callback | Loop | If
        | While | Reduce)


def _no_constants(value: object) -> str:
    raise ValueError("this loop IR function was built without a way to add constants")


@dataclass(eq=False)
class Function:
    name: str
    params: list[str]
    body: list
    fresh: Callable[[str], str]  # a new variable name from a hint (Emitter.fresh)
    # an array constant as a new argument's name (Emitter.constant_arg)
    constant: Callable[[object], str] = _no_constants
    constants: list[str] = field(default_factory=list)  # those arguments' names
    parallel_min_work: int | None = None  # None: no parallel loops
    uses_prange: bool = False  # set by passes that make a parallel loop
    prologue: list = field(default_factory=list)  # scratch, once per call
    helpers: list[Function] = field(default_factory=list)  # parallel loops, outlined


def blocks_of(stmt: Stmt) -> list[list]:
    """The statement lists nested directly in ``stmt``."""
    if isinstance(stmt, Loop):
        return [stmt.per_thread, stmt.body]
    if isinstance(stmt, If):
        return [stmt.body] + ([stmt.orelse] if stmt.orelse is not None else [])
    if isinstance(stmt, While):
        return [stmt.body]
    if isinstance(stmt, Reduce) and stmt.body is not None:
        return [stmt.body]
    return []


def walk(stmts: list) -> Iterator[Stmt]:
    """Every statement of ``stmts``, nested ones included, in source order."""
    for stmt in stmts:
        yield stmt
        for block in blocks_of(stmt):
            yield from walk(block)


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


_ASSIGNED = re.compile(r"^\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*(?:=(?!=)|[-+*/%]=)")


def assigned_names(stmt: Stmt) -> set[str]:
    """The variables ``stmt`` itself assigns (not those of nested statements)."""
    if isinstance(stmt, Assign | Scratch):
        return {name.strip() for name in stmt.target.split(",")}
    if isinstance(stmt, Loop):
        return {stmt.var}
    if isinstance(stmt, Line):
        found = _ASSIGNED.match(stmt.text)
        return {name.strip() for name in found.group(1).split(",")} if found else set()
    return set()


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
            for text in _texts_read(stmt):
                read.update(_NAME.findall(text))
        for stmt in walk(fn.body):
            if isinstance(stmt, Callback):
                stmt.results = tuple((name if read[name] else None, kind)
                                     for name, kind in stmt.results)
        if not _drop_unread(fn.body, read):
            return


_NAME = re.compile(r"[A-Za-z_]\w*")


def _texts_read(stmt: Stmt) -> Iterator[str]:
    """The source text of ``stmt`` itself (not its nested statements), less a
    pure assignment's target."""
    if isinstance(stmt, Assign) and stmt.pure:
        yield stmt.expr
        return
    if isinstance(stmt, Callback):  # (its results are targets)
        yield stmt.call
        return
    nested = [id(block) for block in blocks_of(stmt)]
    for f in fields(stmt):
        value = getattr(stmt, f.name)
        if id(value) not in nested:
            yield from _strings(value)


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


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
    read_outside = {name for s in outside for name in _names_read(s)}
    params = sorted({name for s in walk(region) for name in _names_read(s)} & defined_outside)
    results = sorted({name for s in walk(region) for name in assigned_names(s)} & read_outside)
    name = fn.fresh("parallel_loop")
    body = [*region, Line(f"return ({''.join(r + ', ' for r in results)})")]
    fn.helpers.append(Function(name, params, body, fn.fresh, uses_prange=True))
    call = f"{name}({', '.join(params)})"
    return Assign(", ".join(results), call) if results else Line(call)


_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


# a name that is not an attribute or part of a number (1e-05)
_VARIABLE = re.compile(r"(?<![\w.])[A-Za-z_]\w*")


def _names_read(stmt: Stmt) -> Iterator[str]:
    """The variable names ``stmt`` itself reads (not in comments, messages or
    other string literals)."""
    if isinstance(stmt, Comment):
        return
    texts = (stmt.index, str(stmt.extent)) if isinstance(stmt, IndexCheck) else \
        _texts_read(stmt)
    for text in texts:
        yield from _VARIABLE.findall(_STRING.sub("", text))


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
    """The loop passes in order, logging the IR around those ``JITAIC_DUMP_IR``
    names (``after:split_by_thread``; ``loops``: after the last one)."""
    for name, run in LOOP_PASSES:
        if config.dump_requested("before", name):
            config.debug_log().debug("loop IR before %s:\n%s", name, format_loops(fn))
        run(fn)
        if config.dump_requested("after", name):
            config.debug_log().debug("loop IR after %s:\n%s", name, format_loops(fn))
    if "loops" in str(config.get("dump_ir")).split(","):
        config.debug_log().debug("loop IR of %s:\n%s", fn.name, format_loops(fn))
    return fn


# ---------------------------------------------------------------- rendering

Render = Callable[[Stmt, str], list[str]]  # (statement, indentation) -> lines


def _render_loop(loop: Loop, pad: str) -> list[str]:
    loop_kind = "numba.prange" if loop.parallel else "range"
    bounds = str(loop.stop) if loop.start == 0 and loop.step == 1 else \
        f"{loop.start}, {loop.stop}" if loop.step == 1 else \
        f"{loop.start}, {loop.stop}, {loop.step}"
    return [f"{pad}for {loop.var} in {loop_kind}({bounds}):",
            *render_block(loop.per_thread + loop.body, pad + "    ")]


def _render_if(stmt: If, pad: str) -> list[str]:
    lines = [f"{pad}if {stmt.test}:", *render_block(stmt.body, pad + "    ")]
    if stmt.orelse is not None:
        lines += [f"{pad}else:", *render_block(stmt.orelse, pad + "    ")]
    return lines


def _render_index_check(check: IndexCheck, pad: str) -> list[str]:
    i, n = check.index, check.extent
    # -n <= i < n as one unsigned compare (a wrapped i + n is huge)
    return [f"{pad}if np.uint64({i} + {n}) >= np.uint64(2 * {n}):",
            f"{pad}    raise rt.IndexOutOfBounds({i}, {check.axis}, {n}, {check.where!r})"]


def _render_callback(stmt: Callback, pad: str) -> list[str]:
    types = ", ".join(f"{name}={kind}" for name, kind in stmt.results if name)
    targets = "".join(f"{name or '_'}, " for name, _ in stmt.results)
    return [f"{pad}with numba.objmode({types}):",
            f"{pad}    {targets}= {stmt.call}" if targets else f"{pad}    {stmt.call}"]


RENDER: dict[type, Render] = {
    Line: lambda s, pad: [pad + s.text],
    Comment: lambda s, pad: [f"{pad}# {s.text}"],
    Assign: lambda s, pad: [f"{pad}{s.target} = {s.expr}"],
    Scratch: lambda s, pad: [f"{pad}{s.target} = {s.expr}"],
    Store: lambda s, pad: [f"{pad}{s.array}[{', '.join(s.index)}] = {s.expr}"],
    Raise: lambda s, pad: [f"{pad}raise {s.exception}"],
    IndexCheck: _render_index_check,
    Callback: _render_callback,
    Loop: _render_loop,
    If: _render_if,
    While: lambda s, pad: [f"{pad}while {s.test}:", *render_block(s.body, pad + "    ")],
}


def render_block(stmts: list, pad: str) -> list[str]:
    lines = [line for stmt in stmts for line in RENDER[type(stmt)](stmt, pad)]
    if all(isinstance(stmt, Comment) for stmt in stmts):  # (a body of comments only)
        lines.append(pad + "pass")
    return lines


def render(fn: Function) -> str:
    """The function as Python source for numba, after its outlined parallel
    loops (numba functions it calls)."""
    helpers = [f"@numba.njit(parallel=True, error_model=\"numpy\")\n{render(h)}\n\n"
               for h in fn.helpers]
    header = f"def {fn.name}({', '.join([*fn.params, *fn.constants])}):"
    return "".join(helpers) + "\n".join([header, *render_block(fn.prologue + fn.body, "    ")])


# ---------------------------------------------------------------- printing

def _describe_loop(loop: Loop) -> str:
    kinds = [k for k, on in (("parallel", loop.parallel), ("row loop", loop.rows),
                             ("thread blocks", loop.blocks)) if on]
    step = f" step {loop.step}" if loop.step != 1 else ""
    return f"loop {loop.var} in [{loop.start}, {loop.stop}){step}" + \
        (f"  ({', '.join(kinds)})" if kinds else "")


def _format(stmts: list, pad: str) -> list[str]:
    lines = []
    for stmt in stmts:
        if isinstance(stmt, Loop):
            lines.append(pad + _describe_loop(stmt))
            if stmt.per_thread:
                lines += [f"{pad}  per thread:", *_format(stmt.per_thread, pad + "    ")]
            lines += _format(stmt.body, pad + "  ")
        elif isinstance(stmt, If):
            lines += [f"{pad}if {stmt.test}", *_format(stmt.body, pad + "  ")]
            if stmt.orelse is not None:
                lines += [f"{pad}else", *_format(stmt.orelse, pad + "  ")]
        elif isinstance(stmt, While):
            lines += [f"{pad}while {stmt.test}", *_format(stmt.body, pad + "  ")]
        elif isinstance(stmt, Store):
            lines.append(f"{pad}store {stmt.array}[{', '.join(stmt.index)}] <- {stmt.expr}")
        elif isinstance(stmt, IndexCheck):
            lines.append(f"{pad}check {stmt.index} indexes axis {stmt.axis} of {stmt.extent}")
        elif isinstance(stmt, Scratch):
            lines.append(f"{pad}scratch {stmt.target} = {stmt.expr}")
        elif isinstance(stmt, Assign) and stmt.allocates:
            lines.append(f"{pad}allocate {stmt.target} = {stmt.expr}")
        elif isinstance(stmt, Reduce):
            how = "pairwise " if stmt.pairwise else ""
            lines.append(f"{pad}reduce {stmt.acc} <- {stmt.combine.format(stmt.acc, '.')} over "
                         f"{stmt.var} in [0, {stmt.length}), {how}chunks of {stmt.chunk} "
                         f"through {stmt.buf}")
            lines += _format(stmt.body or [], pad + "  ")
            if stmt.body is not None:
                lines.append(f"{pad}  element {stmt.element}")
        else:
            lines += RENDER[type(stmt)](stmt, pad)
    return lines


def format_loops(fn: Function, note: str = "") -> str:
    """The loop IR for people: loops with their kind, stores, checks, scratch;
    then the functions its parallel loops became."""
    lines = [f"function {fn.name}({', '.join([*fn.params, *fn.constants])}){note}"]
    if fn.prologue:
        lines += ["  once per call:", *_format(fn.prologue, "    ")]
    helpers = ["\n" + format_loops(h, f"  (a parallel loop of {fn.name})") for h in fn.helpers]
    return "\n".join(lines + _format(fn.body, "  ") + helpers)
