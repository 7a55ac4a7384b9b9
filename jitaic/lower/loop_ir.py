"""The loop-level IR: a generated function as statements, before it is text.

Lowering rules build it through the Emitter (``codegen.py``); the named
passes of ``loop_passes.py`` rewrite it; ``render`` turns it into the Python
source numba compiles, one rule per statement kind (``RENDER``), and
``format_loops`` prints it for people (``JITAIC_DUMP_IR=loops``, or
``after:<pass>``).

Statements and loops are objects; expressions are source text (what the
scalar rules of ``kernels/scalar.py`` write). A ``Line`` is a statement no
other kind models yet: the passes treat it as opaque (reading the names it
assigns from its text) and render it as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields

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
    pass_seconds: dict[str, float] = field(default_factory=dict)  # per loop pass (run_passes)


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


# ---------------------------------------------------------------- names

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


def texts_read(stmt: Stmt) -> Iterator[str]:
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



_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


# a name that is not an attribute or part of a number (1e-05)
_VARIABLE = re.compile(r"(?<![\w.])[A-Za-z_]\w*")


def names_read(stmt: Stmt) -> Iterator[str]:
    """The variable names ``stmt`` itself reads (not in comments, messages or
    other string literals)."""
    if isinstance(stmt, Comment):
        return
    texts = (stmt.index, str(stmt.extent)) if isinstance(stmt, IndexCheck) else \
        texts_read(stmt)
    for text in texts:
        yield from _VARIABLE.findall(_STRING.sub("", text))


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
