"""The mutants of one module's syntax tree: one small change each, found in a fixed walk order."""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from tools.mutation import regex

_COMPARE: dict[type[ast.cmpop], tuple[type[ast.cmpop], ...]] = {
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.Lt: (ast.LtE, ast.GtE),
    ast.LtE: (ast.Lt, ast.Gt),
    ast.Gt: (ast.GtE, ast.LtE),
    ast.GtE: (ast.Gt, ast.Lt),
    ast.In: (ast.NotIn,),
    ast.NotIn: (ast.In,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
}
_BINARY: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult,
    ast.Pow: ast.Mult,
    ast.Mod: ast.FloorDiv,
}
_SYMBOL: dict[type, str] = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
    ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Pow: "**",
    ast.Mod: "%", ast.And: "and", ast.Or: "or",
}  # fmt: skip
_REGEX_CALLS = {"compile", "match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer"}


@dataclass(frozen=True)
class Site:
    """One mutant: where it is, what it changes, and how to apply it to a copy of the tree."""

    index: int  # position in the walk; apply() finds the node again by it
    line: int
    scope: str  # the enclosing function or class, "<module>" at the top
    operator: str
    before: str
    after: str
    apply: Callable[[ast.AST, ast.AST | None], ast.AST | None] = lambda node, parent: node

    def key(self, occurrence: int) -> str:
        """A name that survives edits elsewhere in the file (equivalent mutants are listed by it)."""
        return f"{self.scope}: {self.operator} {self.before} -> {self.after} #{occurrence}"


def _walk(tree: ast.AST) -> Iterator[tuple[ast.AST, ast.AST | None, str]]:
    """Every node with its parent and scope, in a fixed order, skipping what never runs as logic:
    docstrings, annotations and `if TYPE_CHECKING:` blocks."""
    stack: list[tuple[ast.AST, ast.AST | None, str]] = [(tree, None, "<module>")]
    while stack:
        node, parent, scope = stack.pop()
        yield node, parent, scope
        inner = scope
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            inner = node.name if scope == "<module>" else f"{scope}.{node.name}"
        children = []
        for field, value in ast.iter_fields(node):
            if field in ("annotation", "returns", "type_comment", "decorator_list", "type_params"):
                continue
            items = value if isinstance(value, list) else [value]
            for i, child in enumerate(items):
                if not isinstance(child, ast.AST):
                    continue
                if field == "body" and i == 0 and _is_docstring(child):
                    continue
                if isinstance(child, ast.If) and _type_checking(child):
                    continue
                children.append((child, node, inner))
        stack.extend(reversed(children))


def _is_docstring(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _regex_strings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are regular expressions: arguments of re.* calls (parts of
    f-strings included), and module-level strings that such an f-string names."""
    found: set[int] = set()
    named: set[str] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.func.attr in _REGEX_CALLS
            and node.args
        ):
            pattern = node.args[0]
            for inner in ast.walk(pattern):
                if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                    found.add(id(inner))
                if isinstance(inner, ast.Name):
                    named.add(inner.id)
    if isinstance(tree, ast.Module):
        for stmt in tree.body:
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and stmt.targets[0].id in named
            ):
                for inner in ast.walk(stmt.value):
                    if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                        found.add(id(inner))
    return found


def sites(tree: ast.Module) -> list[Site]:
    """Every mutant of the tree, in walk order."""
    patterns = _regex_strings(tree)
    out: list[Site] = []
    for index, (node, parent, scope) in enumerate(_walk(tree)):
        line = getattr(node, "lineno", getattr(parent, "lineno", 0))
        for operator, before, after, fn in _mutations(node, parent, id(node) in patterns):
            out.append(Site(index, line, scope, operator, before, after, fn))
    return out


def mutate(tree: ast.Module, site: Site) -> ast.Module:
    """A copy of the tree with one site's change."""
    clone = copy.deepcopy(tree)
    for index, (node, parent, _scope) in enumerate(_walk(clone)):
        if index == site.index:
            replacement = site.apply(node, parent)
            if replacement is not node and parent is not None:
                _replace(parent, node, replacement)
            return ast.fix_missing_locations(clone)
    raise LookupError(f"no node {site.index} in the tree")


def _replace(parent: ast.AST, old: ast.AST, new: ast.AST | None) -> None:
    for field, value in ast.iter_fields(parent):
        if isinstance(value, list):
            for i, item in enumerate(value):
                if item is old:
                    value[i] = new
                    return
        elif value is old:
            setattr(parent, field, new)
            return


Mutation = tuple[str, str, str, Callable[[ast.AST, ast.AST | None], ast.AST | None]]


def _mutations(node: ast.AST, parent: ast.AST | None, is_regex: bool) -> Iterator[Mutation]:
    if isinstance(node, ast.Compare):
        for k, op in enumerate(node.ops):
            for new in _COMPARE.get(type(op), ()):
                yield "compare", _SYMBOL[type(op)], _SYMBOL[new], _set_op(k, new)
    elif isinstance(node, ast.BoolOp):
        flip: type[ast.boolop] = ast.Or if isinstance(node.op, ast.And) else ast.And
        yield "boolean", _SYMBOL[type(node.op)], _SYMBOL[flip], _set_attr("op", flip)
    elif isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in _BINARY:
        swap = _BINARY[type(node.op)]
        yield "arithmetic", _SYMBOL[type(node.op)], _SYMBOL[swap], _set_attr("op", swap)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not | ast.USub):
        yield "unary", "not" if isinstance(node.op, ast.Not) else "-", "(removed)", lambda n, p: n.operand  # type: ignore[attr-defined]
    elif isinstance(node, ast.Constant):
        yield from _constant(node, parent, is_regex)
    elif isinstance(node, ast.Set | ast.List | ast.Tuple) and _literal_collection(node):
        for k, element in enumerate(node.elts):
            yield "element", repr(element.value), "(removed)", _drop_element(k)  # type: ignore[attr-defined]
    elif isinstance(node, ast.Raise):
        yield "statement", "raise", "pass", lambda n, p: ast.copy_location(ast.Pass(), n)
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        yield (
            "statement",
            f"{_call_name(node.value)}(...)",
            "pass",
            lambda n, p: ast.copy_location(ast.Pass(), n),
        )
    elif isinstance(node, ast.Continue | ast.Break):
        yield "statement", type(node).__name__.lower(), "pass", lambda n, p: ast.copy_location(ast.Pass(), n)


def _constant(node: ast.Constant, parent: ast.AST | None, is_regex: bool) -> Iterator[Mutation]:
    value = node.value
    if isinstance(value, bool):
        yield "constant", repr(value), repr(not value), _set_attr("value", not value)
    elif isinstance(value, int):
        yield "number", repr(value), repr(value + 1), _set_attr("value", value + 1)
        if value != 0:
            yield "number", repr(value), repr(value - 1), _set_attr("value", value - 1)
    elif isinstance(value, float):
        new = value * 2 if value else 1.0
        yield "number", repr(value), repr(new), _set_attr("value", new)
    elif isinstance(value, str) and is_regex:
        for what, text in regex.mutants(value):
            yield "regex", what, repr(text), _set_attr("value", text)
    elif (
        isinstance(value, str)
        and not isinstance(parent, ast.JoinedStr)
        and not any(c.isspace() for c in value)
    ):
        yield "string", repr(value), repr(value + "X"), _set_attr("value", value + "X")


def _literal_collection(node: ast.Set | ast.List | ast.Tuple) -> bool:
    return 2 <= len(node.elts) <= 24 and all(isinstance(e, ast.Constant) for e in node.elts)


def _set_op(k: int, new: type[ast.cmpop]) -> Callable[[ast.AST, ast.AST | None], ast.AST]:
    def apply(node: ast.AST, parent: ast.AST | None) -> ast.AST:
        node.ops[k] = new()  # type: ignore[attr-defined]
        return node

    return apply


def _set_attr(name: str, value: object) -> Callable[[ast.AST, ast.AST | None], ast.AST]:
    def apply(node: ast.AST, parent: ast.AST | None) -> ast.AST:
        setattr(node, name, value() if isinstance(value, type) else value)
        return node

    return apply


def _drop_element(k: int) -> Callable[[ast.AST, ast.AST | None], ast.AST]:
    def apply(node: ast.AST, parent: ast.AST | None) -> ast.AST:
        del node.elts[k]  # type: ignore[attr-defined]
        return node

    return apply


def _call_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return "call"
