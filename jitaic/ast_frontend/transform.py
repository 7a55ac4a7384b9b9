"""Rewrite a function's AST so its control flow can be traced.

After this pass the function contains no ``if``/``while``/``for range``
statements, conditional expressions or ``and``/``or``/``not`` on values that
may be traced: each became a call into ``jitaic.ast_frontend.runtime``, which
runs plain Python when the test is static and records cond/while_loop/
for_loop when it is traced. Bodies become nested functions whose parameters
and results are the statement's loop-carried / branch-assigned variables
(found by def-use analysis: assigned in the body, and defined before or used
after it). Early ``return`` inside ``if`` is normalised first: the rest of
the block moves into the ``else`` branch so both paths return.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import textwrap
import types

import astor

from jitaic.ast_frontend.loop_exits import rewrite_loop_exits
from jitaic.errors import UnsupportedError

RT = "__jitaic_rt"
_counter = itertools.count()

_REJECTED = {
    ast.Try: "try/except", ast.With: "with", ast.AsyncWith: "async with",
    ast.Yield: "yield", ast.YieldFrom: "yield from", ast.Global: "global",
    ast.Nonlocal: "nonlocal", ast.ClassDef: "a class definition",
    ast.AsyncFunctionDef: "async def", ast.Await: "await",
}
if hasattr(ast, "TryStar"):
    _REJECTED[ast.TryStar] = "try/except*"


def _error(node: ast.AST, what: str, filename: str) -> UnsupportedError:
    return UnsupportedError(f"{what} is not supported in jitted functions (mode=\"ast\") at "
                            f"{filename.rsplit('/', 1)[-1]}:{getattr(node, 'lineno', '?')}")


def fence(fdef: ast.FunctionDef, filename: str) -> None:
    """Reject constructs the frontend cannot compile, naming their line."""
    for node in ast.walk(fdef):
        for kind, what in _REJECTED.items():
            if isinstance(node, kind):
                raise _error(node, what, filename)


def _is_range(node: ast.For) -> bool:
    it = node.iter
    return (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
            and it.func.id == "range" and not it.keywords and isinstance(node.target, ast.Name)
            and not node.orelse)


# ---------------------------------------------------------------- early returns

def _ends_in_return(stmts: list[ast.stmt]) -> bool:
    return bool(stmts) and isinstance(stmts[-1], ast.Return)


def normalize_returns(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """``if c: ...; return a`` followed by more code -> the code moves into else."""
    out: list[ast.stmt] = []
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, ast.If):
            stmt.body = normalize_returns(stmt.body)
            stmt.orelse = normalize_returns(stmt.orelse)
            rest = stmts[i + 1:]
            if _ends_in_return(stmt.body) and not stmt.orelse and rest:
                stmt.orelse = normalize_returns(rest)
                out.append(stmt)
                return out
        out.append(stmt)
    return out


# ---------------------------------------------------------------- def-use

def _stored(node: ast.AST) -> set[str]:
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            names.add(n.id)
        elif isinstance(n, (ast.FunctionDef,)) and n is not node:
            names.add(n.name)
    return {n for n in names if not n.startswith("__jitaic")}


class _DefUse:
    """Which variables each control-flow statement must pass in and out."""

    def __init__(self, fdef: ast.FunctionDef) -> None:
        augmented = {id(n.target) for n in ast.walk(fdef) if isinstance(n, ast.AugAssign)}
        # `v += x` reads v, though its Name is a store
        self.loads = [n for n in ast.walk(fdef) if isinstance(n, ast.Name) and (
            isinstance(n.ctx, ast.Load) or id(n) in augmented)]
        self.stores = [n for n in ast.walk(fdef) if isinstance(n, ast.Name)
                       and isinstance(n.ctx, ast.Store)]
        self.params = {a.arg for a in (*fdef.args.posonlyargs, *fdef.args.args,
                                       *fdef.args.kwonlyargs)}
        for extra in (fdef.args.vararg, fdef.args.kwarg):
            if extra is not None:
                self.params.add(extra.arg)

    def carried(self, stmt: ast.stmt, extra_reads: ast.AST | None = None) -> list[str]:
        used_after = self.read_outside(stmt)
        inside = {id(n) for n in ast.walk(stmt)}
        # <=: flags the loop-exit rewrite sets up carry the loop's own line
        defined_before = self.params | {n.id for n in self.stores if id(n) not in inside
                                        and n.lineno <= stmt.lineno}
        read_in_test = {n.id for n in ast.walk(extra_reads) if isinstance(n, ast.Name)} \
            if extra_reads is not None else set()
        body_names = _stored(stmt)
        if isinstance(stmt, ast.For):
            body_names -= _stored(stmt.target)
        return sorted(body_names & (used_after | defined_before | read_in_test))

    def read_outside(self, stmt: ast.stmt) -> set[str]:
        """Names read outside ``stmt`` (after it, or before it in an enclosing loop)."""
        inside = {id(n) for n in ast.walk(stmt)}
        return {n.id for n in self.loads if id(n) not in inside}


# ---------------------------------------------------------------- the rewrite

def _rt(attr: str) -> ast.Attribute:
    return ast.Attribute(ast.Name(RT, ast.Load()), attr, ast.Load())


def _call(attr: str, *args: ast.expr) -> ast.Call:
    return ast.Call(_rt(attr), list(args), [])


def _names_tuple(names: list[str], ctx) -> ast.Tuple:
    return ast.Tuple([ast.Name(n, ctx()) for n in names], ctx())


def _constants(names: list[str]) -> ast.Tuple:
    return ast.Tuple([ast.Constant(n) for n in names], ast.Load())


def _current_values(names: list[str]) -> ast.Tuple:
    locals_call = ast.Call(ast.Name("locals", ast.Load()), [], [])
    return ast.Tuple([_call("get", locals_call, ast.Constant(n)) for n in names], ast.Load())


def _function(name: str, params: list[str], body: list[ast.stmt],
              returns: list[str] | None) -> ast.FunctionDef:
    body = list(body) or [ast.Pass()]
    if returns is not None:
        body.append(ast.Return(_names_tuple(returns, ast.Load)))
    args = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    return ast.FunctionDef(name, args, body, [], None, None)


def _assign_result(names: list[str], call: ast.Call) -> ast.stmt:
    if not names:
        return ast.Expr(call)
    return ast.Assign([_names_tuple(names, ast.Store)], call)


def _located(statements: list[ast.stmt], original: ast.stmt) -> list[ast.stmt]:
    """The statements a loop or branch became, at its line: the loop and cond
    nodes they trace (and errors raised while tracing them) name the line of
    the ``for``/``while``/``if``, not a later one."""
    for statement in statements:
        for node in ast.walk(statement):
            if getattr(node, "lineno", None) is None and "lineno" in node._attributes:
                # on the first line only: CPython reports a method call at
                # the end line of its attribute
                node.lineno = node.end_lineno = original.lineno
                node.col_offset = node.end_col_offset = original.col_offset
    return statements


class ControlFlowRewriter(ast.NodeTransformer):
    def __init__(self, defuse: _DefUse) -> None:
        self.defuse = defuse
        self._carried: dict[int, list[str]] = {}

    def analyse(self, fdef: ast.FunctionDef) -> None:
        for node in ast.walk(fdef):
            if isinstance(node, ast.If):
                self._carried[id(node)] = self.defuse.carried(node)
            elif isinstance(node, ast.While):
                self._carried[id(node)] = self.defuse.carried(node, node.test)
            elif isinstance(node, ast.For) and not node.orelse:
                self._carried[id(node)] = self.defuse.carried(node)

    def visit_If(self, node: ast.If):
        carried = self._carried[id(node)]
        self.generic_visit(node)
        n = next(_counter)
        then_name, else_name = f"__jitaic_then_{n}", f"__jitaic_else_{n}"
        if _ends_in_return(node.body) and _ends_in_return(node.orelse):
            then_fn = _function(then_name, [], node.body, None)
            else_fn = _function(else_name, [], node.orelse, None)
            call = _call("if_return", node.test, ast.Name(then_name, ast.Load()),
                         ast.Name(else_name, ast.Load()))
            return _located([then_fn, else_fn, ast.Return(call)], node)
        then_fn = _function(then_name, carried, node.body, carried)
        else_fn = _function(else_name, carried, node.orelse, carried)
        call = _call("if_stmt", node.test, ast.Name(then_name, ast.Load()),
                     ast.Name(else_name, ast.Load()), _current_values(carried),
                     _constants(carried))
        return _located([then_fn, else_fn, _assign_result(carried, call)], node)

    def visit_While(self, node: ast.While):
        carried = self._carried[id(node)]
        self.generic_visit(node)
        n = next(_counter)
        test_fn = _function(f"__jitaic_test_{n}", carried, [ast.Return(node.test)], None)
        body_fn = _function(f"__jitaic_body_{n}", carried, node.body, carried)
        call = _call("while_stmt", ast.Name(test_fn.name, ast.Load()),
                     ast.Name(body_fn.name, ast.Load()), _current_values(carried),
                     _constants(carried), self._observed(node, carried))
        return _located([test_fn, body_fn, _assign_result(carried, call)], node)

    def visit_For(self, node: ast.For):
        if node.orelse:  # only a loop with a break keeps one, and that became a flag
            self.generic_visit(node)
            return node
        carried = self._carried[id(node)]
        self.generic_visit(node)
        n = next(_counter)
        if _is_range(node):
            params, body = [node.target.id, *carried], node.body
            runner, iterable = "for_range", ast.Tuple(node.iter.args, ast.Load())
        else:  # the item is unpacked into the target at the top of the body
            item = f"__jitaic_item_{n}"
            unpack = ast.copy_location(ast.Assign([node.target], ast.Name(item, ast.Load())),
                                       node)
            params, body = [item, *carried], [unpack, *node.body]
            runner, iterable = "for_iter", _iterable(node.iter)
        body_fn = _function(f"__jitaic_body_{n}", params, body, carried)
        call = _call(runner, iterable, ast.Name(body_fn.name, ast.Load()),
                     _current_values(carried), _constants(carried),
                     self._observed(node, carried))
        return _located([body_fn, _assign_result(carried, call)], node)

    def _observed(self, loop: ast.stmt, carried: list[str]) -> ast.Tuple:
        """The carried variables read after the loop: whose dtype the loop
        leaves matters (tracer/loops.py, _trip_dependent)."""
        read = self.defuse.read_outside(loop)
        return _constants([c for c in carried if c in read])

    def visit_Return(self, node: ast.Return):
        """A returned variable must be assigned on every path (checked while
        tracing: jitaic compiles both sides of a branch)."""
        self.generic_visit(node)
        if node.value is not None:
            node.value = ast.copy_location(_call("returned", node.value), node.value)
        return node

    def visit_Assert(self, node: ast.Assert):
        """``assert test, message``: on a traced test, a check when the code runs."""
        self.generic_visit(node)
        message = _lambda(node.msg if node.msg is not None else ast.Constant(None))
        return _located([ast.Expr(_call("assert_", node.test, message))], node)[0]

    def visit_IfExp(self, node: ast.IfExp):
        self.generic_visit(node)
        return _call("ifexp", node.test, _lambda(node.body), _lambda(node.orelse))

    def visit_BoolOp(self, node: ast.BoolOp):
        self.generic_visit(node)
        name = "and_" if isinstance(node.op, ast.And) else "or_"
        return _call(name, *(_lambda(v) for v in node.values))

    def visit_UnaryOp(self, node: ast.UnaryOp):
        self.generic_visit(node)
        return _call("not_", node.operand) if isinstance(node.op, ast.Not) else node

    def visit_Subscript(self, node: ast.Subscript):
        """A read ``x[i]`` goes through the runtime: NumPy cannot index an
        array the function closes over (a constant) with a traced index."""
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            return node
        call = _call("subscript", node.value, _index_value(node.slice))
        return _located([call], node)[0]  # (its new nodes: on the subscript's first line)

    def visit_Call(self, node: ast.Call):
        """Builtin ``max``/``min`` of several values compare them in Python; on
        traced scalars that needs run-time values, so they go to the runtime,
        and so does ``len`` (of an array whose length is a run-time value)."""
        self.generic_visit(node)
        plain = isinstance(node.func, ast.Name) and not node.keywords and not any(
            isinstance(a, ast.Starred) for a in node.args)
        if plain and node.func.id in ("max", "min") and len(node.args) > 1 or \
                plain and node.func.id == "len" and len(node.args) == 1:
            return ast.copy_location(_call(f"{node.func.id}_", *node.args), node)
        return node


def _iterable(expr: ast.expr) -> ast.expr:
    """``enumerate(...)``, ``zip(...)`` and ``range(...)`` become the runtime's
    iterables, which index arrays with the loop index instead of unrolling."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and \
            expr.func.id in ("enumerate", "zip", "range") and not any(
                isinstance(a, ast.Starred) for a in expr.args):
        args = [_iterable(a) if expr.func.id != "range" else a for a in expr.args]
        return ast.Call(_rt(f"{expr.func.id}_"), args, expr.keywords)
    return _call("iterate", expr)


def _index_value(index: ast.expr) -> ast.expr:
    """An index as an expression: ``a:b`` becomes ``slice(a, b, None)``."""
    if isinstance(index, ast.Slice):
        none = ast.Constant(None)
        return ast.Call(ast.Name("slice", ast.Load()),
                        [index.lower or none, index.upper or none, index.step or none], [])
    if isinstance(index, ast.Tuple):
        return ast.Tuple([_index_value(e) for e in index.elts], ast.Load())
    return index


def _lambda(expr: ast.expr) -> ast.Lambda:
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])
    return ast.Lambda(args, expr)


# ---------------------------------------------------------------- conversion

class Converted:
    """A rewritten function and its source (for ``lower(...).rewritten_source()``)."""

    def __init__(self, fn: types.FunctionType, source: str) -> None:
        self.fn, self.source = fn, source


_CACHE: dict[types.CodeType, Converted] = {}


def convert(fn: types.FunctionType) -> Converted:
    """The AST-rewritten version of ``fn`` (same globals and closure)."""
    if fn.__name__ == "<lambda>":  # no statements to rewrite
        return Converted(fn, "")
    cached = _CACHE.get(fn.__code__)
    if cached is not None:
        return _rebind(cached, fn)
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as exc:
        raise UnsupportedError(f"mode=\"ast\" needs the source of {fn.__qualname__}, which "
                               f"is not available ({exc})") from None
    filename = fn.__code__.co_filename
    tree = ast.parse(textwrap.dedent("".join(lines)))
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef):  # a lambda holds no statements
        return Converted(fn, "")
    ast.increment_lineno(tree, first - 1)
    fdef.decorator_list = []
    fence(fdef, filename)
    fdef = rewrite_loop_exits(fdef)
    fdef.body = normalize_returns(fdef.body)
    rewriter = ControlFlowRewriter(_DefUse(fdef))
    rewriter.analyse(fdef)
    fdef = rewriter.visit(fdef)
    freevars = list(fn.__code__.co_freevars)
    factory = ast.FunctionDef(
        "__jitaic_factory",
        ast.arguments(posonlyargs=[], args=[ast.arg(v) for v in freevars], vararg=None,
                      kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        [fdef, ast.Return(ast.Name(fdef.name, ast.Load()))], [], None, None)
    module = ast.fix_missing_locations(ast.Module([factory], []))
    converted = Converted(None, astor.to_source(fdef))
    converted.code = compile(module, filename, "exec")
    _CACHE[fn.__code__] = converted
    return _rebind(converted, fn)


def _rebind(converted: Converted, fn: types.FunctionType) -> Converted:
    """Instantiate the rewritten code with ``fn``'s own globals and closure values."""
    from jitaic.ast_frontend import runtime

    namespace = dict(fn.__globals__)
    namespace[RT] = runtime
    exec(converted.code, namespace)
    cells = [c.cell_contents for c in fn.__closure__ or ()]
    new = namespace["__jitaic_factory"](*cells)
    new.__defaults__, new.__kwdefaults__ = fn.__defaults__, fn.__kwdefaults__
    return Converted(new, converted.source)
