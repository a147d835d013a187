"""Turn operator sites into checked single-site mutants.

Every mutant is compiled and compared with the original before anyone sees it:
it must compile without warnings (a ``SyntaxWarning`` is a tell), keep the
function's name, decorators, docstring and signature (defaults may change only
for operators whose bug is a default), leave every line outside the function
byte-identical, and differ from the original in its syntax tree (no no-ops).
"""

from __future__ import annotations

import ast
import functools
import random
import warnings
from collections.abc import Iterable, Iterator

import libcst as cst

from corrupt.corruptors.models import Mutant
from corrupt.corruptors.operators.base import FunctionContext, Operator, Site
from corrupt.source.edits import changed_lines, split_lines
from corrupt.source.functions import AstFunction, extent, function_at
from corrupt.source.locate import Located, locate, outside_unchanged


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
    """Why ``corrupted`` is not an acceptable mutant of ``before``, or None if it is.

    The text outside the function is compared first; then only the function's
    own lines are parsed and compiled (wrapped in a class when indented), since
    parsing whole files dominated generation time. A function using
    ``nonlocal`` needs its enclosing scopes, so it takes the whole-file path.
    """
    prefix, suffix = _outside(original, extent(before))
    if (
        len(corrupted) < len(prefix) + len(suffix)
        or not corrupted.startswith(prefix)
        or not corrupted.endswith(suffix)
    ):
        return "changed code outside the target function"
    region = corrupted[len(prefix) : len(corrupted) - len(suffix)]
    if "nonlocal" in region:
        return _whole_file_problem(original, corrupted, qualname, before, allow_defaults)
    indented = region[:1] in (" ", "\t")
    wrapped = "class _:\n" + region if indented else region
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            tree = ast.parse(wrapped)
            compile(tree, "<mutant>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, SyntaxWarning) as exc:
        return f"does not compile: {exc}"
    body = tree.body[0].body if indented else tree.body  # type: ignore[attr-defined]
    if len(body) != 1 or not isinstance(body[0], type(before)) or body[0].name != before.name:
        return "target function moved or vanished"
    return _function_problem(before, body[0], allow_defaults)


def _function_problem(before: AstFunction, after: AstFunction, allow_defaults: bool) -> str | None:
    if _original_signature(before, not allow_defaults) != _signature(after, not allow_defaults):
        return "changed the signature, decorators or docstring"
    if _original_dump(before) == ast.dump(after):
        return "no-op: the syntax tree is unchanged"
    return None


# Every mutant of a function is compared with the same original node: its dumps
# are made once (keyed by the node itself, which the cache keeps alive).
_original_signature = functools.lru_cache(maxsize=16)(_signature)
_original_dump = functools.lru_cache(maxsize=16)(ast.dump)


@functools.lru_cache(maxsize=16)
def _line_starts(text: str) -> list[int]:
    starts = [0]
    for line in split_lines(text):
        starts.append(starts[-1] + len(line))
    return starts


def _outside(original: str, lines: tuple[int, int]) -> tuple[str, str]:
    """The text before the function's first line and after its last line."""
    starts = _line_starts(original)
    first, last = lines
    return original[: starts[first - 1]], original[starts[min(last, len(starts) - 1)] :]


def _whole_file_problem(
    original: str, corrupted: str, qualname: str, before: AstFunction, allow_defaults: bool
) -> str | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            tree = ast.parse(corrupted)
            compile(tree, "<mutant>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, SyntaxWarning) as exc:
        return f"does not compile: {exc}"
    after = function_at(tree, before.lineno, qualname)
    if after is None:
        return "target function moved or vanished"
    if not outside_unchanged(original, corrupted, extent(before), extent(after)):
        return "changed code outside the target function"
    return _function_problem(before, after, allow_defaults)


def apply_site(located: Located, ctx: FunctionContext, site: Site) -> str:
    """The file text with one site rewritten (only the function is re-rendered)."""
    if site.node is located.function:
        assert isinstance(site.replacement, cst.FunctionDef)
        return located.with_function(site.replacement)
    if ctx.parent(site.node) is None:  # in the signature
        assert isinstance(site.replacement, cst.CSTNode)
        new = located.function.deep_replace(site.node, site.replacement)
        assert isinstance(new, cst.FunctionDef)
        return located.with_function(new)
    return located.with_function(ctx.replaced(site.node, site.replacement))


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
    from corrupt.corruptors.operators import select

    located = locate(source, qualname, def_line)
    before = located.node
    ctx = FunctionContext.build(located.function)
    seen: set[str] = set()
    mutants: list[Mutant] = []
    for operator in select(operators):
        for site in _sites(operator, ctx):
            try:
                corrupted = apply_site(located, ctx, site)
            except cst.CSTValidationError:
                continue  # e.g. a keyword that would touch a parenthesis: not expressible here
            if corrupted in seen or corrupted == source:
                continue
            seen.add(corrupted)
            if mutant_problem(
                source, corrupted, qualname, before, allow_defaults=operator.changes_defaults
            ):
                continue
            lines = _changed_function_lines(source, corrupted, located)
            mutants.append(_mutant(operator, site, corrupted, lines, located, file, qualname))
    random.Random(seed).shuffle(mutants)
    return mutants


def _sites(operator: Operator, ctx: FunctionContext) -> Iterator[Site]:
    """The operator's sites; a rewrite libcst refuses to build ends that operator's run
    on this function instead of the whole generation (the other operators still run)."""
    try:
        yield from operator.sites(ctx)
    except cst.CSTValidationError:
        return


def _changed_function_lines(source: str, corrupted: str, located: Located) -> list[int]:
    """:func:`changed_lines`, diffing only the function (the rest is known to be equal)."""
    old, new = split_lines(source), split_lines(corrupted)
    skip, tail = located.span.start - 1, len(old) - located.span.end
    region_old = "".join(old[skip : len(old) - tail])
    region_new = "".join(new[skip : len(new) - tail])
    return [skip + line for line in changed_lines(region_old, region_new)]


def _mutant(
    operator: Operator,
    site: Site,
    corrupted: str,
    lines: list[int],
    located: Located,
    file: str,
    qualname: str,
) -> Mutant:
    source = located.source
    return Mutant(
        target=qualname,
        file=file,
        operator=operator.name,
        odc_category=operator.odc_category,
        odc_subcategory=operator.odc_subcategory,
        hef_category=operator.hef_category,
        original=source,
        corrupted=corrupted,
        lines=lines,
        description=site.description,
    )
