"""Turn operator sites into checked single-site mutants.

Every mutant is compiled and compared with the original before anyone sees it:
it must compile without warnings (a ``SyntaxWarning`` is a tell), keep the
function's name, decorators, docstring and signature (defaults may change only
for operators whose bug is a default), leave every line outside the function
byte-identical, and differ from the original in its syntax tree (no no-ops).
"""

from __future__ import annotations

import ast
import random
import warnings
from collections.abc import Iterable

import libcst as cst

from corrupt.corrupt.edits import changed_lines
from corrupt.corrupt.locate import (
    AstFunction,
    Located,
    find_ast_function,
    locate,
    outside_unchanged,
    span_of,
)
from corrupt.corrupt.models import Mutant
from corrupt.corrupt.operators.base import FunctionContext, Operator, Site


def _signature(node: AstFunction, with_defaults: bool) -> str:
    args = node.args
    if not with_defaults:
        args = ast.arguments(
            posonlyargs=args.posonlyargs,
            args=args.args,
            vararg=args.vararg,
            kwonlyargs=args.kwonlyargs,
            kw_defaults=[None for _ in args.kw_defaults],
            kwarg=args.kwarg,
            defaults=[],
        )
    parts = [type(node).__name__, node.name, ast.dump(args), ast.dump(node.returns or ast.Pass())]
    parts += [ast.dump(d) for d in node.decorator_list]
    parts.append(repr(ast.get_docstring(node, clean=False)))
    return "\n".join(parts)


def mutant_problem(
    original: str,
    corrupted: str,
    qualname: str,
    before: AstFunction,
    *,
    allow_defaults: bool = False,
) -> str | None:
    """Why ``corrupted`` is not an acceptable mutant of ``before``, or None if it is."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            tree = ast.parse(corrupted)
            compile(tree, "<mutant>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, SyntaxWarning) as exc:
        return f"does not compile: {exc}"
    after = find_ast_function(tree, qualname, before.lineno)
    if after is None:
        return "target function moved or vanished"
    if not outside_unchanged(original, corrupted, span_of(before), span_of(after)):
        return "changed code outside the target function"
    if _signature(before, not allow_defaults) != _signature(after, not allow_defaults):
        return "changed the signature, decorators or docstring"
    if ast.dump(before) == ast.dump(after):
        return "no-op: the syntax tree is unchanged"
    return None


def apply_site(located: Located, site: Site) -> str:
    """The file text with one site rewritten (only the function is re-rendered)."""
    function = located.function
    if site.node is function:
        new = site.replacement
    elif isinstance(site.replacement, cst.RemovalSentinel):
        new = function.deep_remove(site.node)
    else:
        new = function.deep_replace(site.node, site.replacement)
    assert isinstance(new, cst.FunctionDef)
    return located.with_function(new)


def generate_mutants(
    source: str,
    file: str,
    qualname: str,
    def_line: int,
    *,
    seed: int = 0,
    operators: Iterable[str] | None = None,
) -> list[Mutant]:
    """All checked single-site mutants of one function, shuffled deterministically by ``seed``.

    Two sites that yield the same file are kept once (the first operator in
    name order wins), so the list never holds duplicate candidates.
    """
    from corrupt.corrupt.operators import select

    located = locate(source, qualname, def_line)
    before = find_ast_function(ast.parse(source), qualname, def_line)
    assert before is not None
    ctx = FunctionContext.build(located.function)
    seen: set[str] = set()
    mutants: list[Mutant] = []
    for operator in select(operators):
        for site in operator.sites(ctx):
            corrupted = apply_site(located, site)
            if corrupted in seen or corrupted == source:
                continue
            seen.add(corrupted)
            if mutant_problem(
                source, corrupted, qualname, before, allow_defaults=operator.changes_defaults
            ):
                continue
            mutants.append(_mutant(operator, site, source, corrupted, qualname, file))
    random.Random(seed).shuffle(mutants)
    return mutants


def _mutant(
    operator: Operator, site: Site, source: str, corrupted: str, qualname: str, file: str
) -> Mutant:
    return Mutant(
        target=qualname,
        file=file,
        operator=operator.name,
        odc_category=operator.odc_category,
        odc_subcategory=operator.odc_subcategory,
        hef_category=operator.hef_category,
        original=source,
        corrupted=corrupted,
        lines=changed_lines(source, corrupted),
        description=site.description,
    )
