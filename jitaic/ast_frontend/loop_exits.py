"""``break``, ``continue`` and ``return`` inside loops, rewritten as flags.

Structured loops (while_loop, for_loop) have one exit, so each early exit
becomes an assignment to a flag variable and the statements that would have
been skipped are guarded by it (AutoGraph does the same):

    while test:                 _jitaic_break_3 = False
        a()                     while not _jitaic_break_3 and test:
        if c:                       a()
            break                   if c:
        b()                             _jitaic_break_3 = True
                                    if not _jitaic_break_3:
                                        b()

``continue`` sets a flag reset at the top of each iteration. ``return v``
sets a return flag and the value (``VALUE_PREFIX``: on paths that did not
return, control flow fills it with zeros of its type), and breaks; right after the loop,
``if flag: return value`` hands it on (to the enclosing loop, which rewrites
it again, or to the function, where early returns are normalised). A for
loop keeps its trip count: iterations after a break run their guard only.
A loop's ``else`` clause runs when the break flag is still false.

The flags are ordinary variables, so when a test depends on traced values
they become traced booleans carried by the loop and the guards become conds;
when everything is static, the rewritten code runs as plain Python.
"""

from __future__ import annotations

import ast
import itertools

_counter = itertools.count()
PREFIX = "_jitaic_"
VALUE_PREFIX = f"{PREFIX}value_"


def _name(id_: str, ctx=ast.Load) -> ast.Name:
    return ast.Name(id_, ctx())


def _set(name: str, value: ast.expr, like: ast.AST) -> ast.Assign:
    return ast.copy_location(ast.Assign([_name(name, ast.Store)], value), like)


def _not(names: list[str]) -> ast.expr:
    """``not (a or b ...)`` as ``not a and not b``, so static flags short-circuit."""
    terms = [ast.UnaryOp(ast.Not(), _name(n)) for n in names]
    return terms[0] if len(terms) == 1 else ast.BoolOp(ast.And(), terms)


def _exits(stmts: list[ast.stmt]) -> set[type]:
    """Which of Break/Continue/Return occur in these statements for this loop
    (not inside nested loops or functions)."""
    return {type(n) for s in stmts for n in _walk_loop(s)
            if isinstance(n, (ast.Break, ast.Continue, ast.Return))}


def _returns(stmts: list[ast.stmt]) -> list[ast.Return]:
    return [n for s in stmts for n in _walk_loop(s) if isinstance(n, ast.Return)]


def _walk_loop(node: ast.AST):
    """The nodes of one loop's body, not descending into nested loops or functions."""
    stack = [node]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.While, ast.For, ast.FunctionDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def _tuple_arity(returns: list[ast.Return]) -> int | None:
    """k when every return gives a k-tuple display (each item gets its own variable,
    so a loop can carry them), else None."""
    arities = {len(r.value.elts) if isinstance(r.value, ast.Tuple) and not any(
        isinstance(e, ast.Starred) for e in r.value.elts) else None for r in returns}
    return arities.pop() if len(arities) == 1 else None


class _Loop:
    """The flag names of one loop."""

    def __init__(self, body: list[ast.stmt]) -> None:
        n = next(_counter)
        self.brk, self.cont = f"{PREFIX}break_{n}", f"{PREFIX}continue_{n}"
        self.ret = f"{PREFIX}returned_{n}"
        arity = _tuple_arity(_returns(body))
        self.values = [f"{VALUE_PREFIX}{n}"] if arity is None else [
            f"{VALUE_PREFIX}{n}_{k}" for k in range(arity)]
        self.as_tuple = arity is not None

    def returned_value(self) -> ast.expr:
        names = [_name(v) for v in self.values]
        return ast.Tuple(names, ast.Load()) if self.as_tuple else names[0]

    def store_return(self, stmt: ast.Return) -> list[ast.stmt]:
        value = stmt.value if stmt.value is not None else ast.Constant(None)
        items = value.elts if self.as_tuple else [value]
        return [_set(name, item, stmt) for name, item in zip(self.values, items, strict=True)]

    def guard_block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        """Exits become flag assignments; statements after a possible exit are guarded."""
        out: list[ast.stmt] = []
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, ast.Break):
                out.append(_set(self.brk, ast.Constant(True), stmt))
                return out
            if isinstance(stmt, ast.Continue):
                out.append(_set(self.cont, ast.Constant(True), stmt))
                return out
            if isinstance(stmt, ast.Return):
                out += [*self.store_return(stmt), _set(self.ret, ast.Constant(True), stmt),
                        _set(self.brk, ast.Constant(True), stmt)]
                return out
            exits = _exits([stmt])
            if isinstance(stmt, ast.If):
                stmt.body = self.guard_block(stmt.body) or [ast.Pass()]
                stmt.orelse = self.guard_block(stmt.orelse)
            out.append(stmt)
            rest = stmts[i + 1:]
            if exits and rest:
                flags = [self.brk] if exits - {ast.Continue} else []
                flags += [self.cont] if ast.Continue in exits else []
                guarded = ast.If(_not(flags), self.guard_block(rest), [])
                out.append(ast.copy_location(guarded, rest[0]))
                return out
        return out


class LoopExitRewriter(ast.NodeTransformer):
    """Rewrites innermost loops first, so a return handed on by an inner loop is
    an ordinary return inside the outer one.

    A for loop's target read after the loop (``return i`` after a search loop)
    is assigned from a fresh loop variable at the top of the body, so it is an
    ordinary variable the loop carries out (holding the last iteration's value,
    or the one at the break)."""

    def __init__(self, loads: list[ast.Name]) -> None:
        self.loads = loads

    def visit_While(self, node: ast.While):
        return self._loop(node)

    def visit_For(self, node: ast.For):
        if isinstance(node.target, ast.Name) and any(
                n.id == node.target.id and n.lineno > node.end_lineno for n in self.loads):
            index = f"{PREFIX}index_{next(_counter)}"
            node.body.insert(0, _set(node.target.id, _name(index), node))
            node.target = ast.copy_location(_name(index, ast.Store), node.target)
        return self._loop(node)

    def _loop(self, node: ast.While | ast.For) -> list[ast.stmt]:
        self.generic_visit(node)
        exits = _exits(node.body)
        if not exits and not node.orelse:
            return [node]
        loop = _Loop(node.body)
        before: list[ast.stmt] = []
        if exits - {ast.Continue} or node.orelse:
            before.append(_set(loop.brk, ast.Constant(False), node))
        if ast.Return in exits:  # the value stays unassigned until a return sets it
            before.append(_set(loop.ret, ast.Constant(False), node))
        body = loop.guard_block(node.body)
        if ast.Continue in exits:
            body.insert(0, _set(loop.cont, ast.Constant(False), node))
        if exits - {ast.Continue}:
            if isinstance(node, ast.While):
                node.test = ast.BoolOp(ast.And(), [_not([loop.brk]), node.test])
                node.body = body
            else:  # the trip count stays; later iterations do nothing
                node.body = [ast.copy_location(ast.If(_not([loop.brk]), body, []), node)]
        else:
            node.body = body
        after: list[ast.stmt] = []
        if node.orelse:
            after.append(ast.copy_location(ast.If(_not([loop.brk]), node.orelse, []), node))
            node.orelse = []
        if ast.Return in exits:
            hand_on = ast.If(_name(loop.ret), [ast.Return(loop.returned_value())], [])
            after.append(ast.copy_location(hand_on, node))
        return [*before, node, *after]


def rewrite_loop_exits(fdef: ast.FunctionDef) -> ast.FunctionDef:
    loads = [n for n in ast.walk(fdef) if isinstance(n, ast.Name) and
             isinstance(n.ctx, ast.Load)]
    return ast.fix_missing_locations(LoopExitRewriter(loads).visit(fdef))
