"""Each operator makes the bug it names, and declines where it cannot apply safely."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable

import libcst as cst
import pytest

from corrupt.corruptors.deletion import hollow_body
from corrupt.corruptors.operators import CATALOGUE, Operator, generate_mutants
from corrupt.errors import InputError
from corrupt.source.edits import apply_edit_script, edit_script, split_lines
from corrupt.source.functions import defs_in_order
from corrupt.source.locate import TargetNotFound, locate


def _mutants(source: str, operator: str) -> list[str]:
    """The corrupted files one operator makes of the first function in ``source``."""
    source = textwrap.dedent(source)
    node = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef))
    mutants = generate_mutants(source, "m.py", f"m.{node.name}", node.lineno, operators=[operator])
    for mutant in mutants:
        assert mutant.operator == operator
        assert apply_edit_script(mutant.corrupted, edit_script(source, mutant.corrupted)) == source
        assert mutant.lines, "a mutant names the lines it changed"
    return [m.corrupted for m in mutants]


# operator: (source, one expected corrupted file, source where it must decline)
CASES: dict[str, tuple[str, str, str]] = {
    "flip_comparison": (
        "def f(a, b):\n    if a < b:\n        return a\n    return b\n",
        "def f(a, b):\n    if a > b:\n        return a\n    return b\n",
        "def f(a, b):\n    return a + b or 0 <= a <= b\n",
    ),
    "shift_boundary": (
        "def f(a, b):\n    if a < b:\n        return a\n    return b\n",
        "def f(a, b):\n    if a <= b:\n        return a\n    return b\n",
        "def f(a, b):\n    return a == b\n",
    ),
    "negate_condition": (
        "def f(a, b):\n    while a and b:\n        a -= 1\n    return a\n",
        "def f(a, b):\n    while not (a and b):\n        a -= 1\n    return a\n",
        "def f(a):\n    return a\n",
    ),
    "negate_condition/comparison": (
        "def f(a, b):\n    if a is None or b:\n        return 0 if a <= b < 3 else 1\n",
        "def f(a, b):\n    if a is None or b:\n        return 0 if not (a <= b < 3) else 1\n",
        "def f(a, b):\n    return [a, b]\n",
    ),
    "drop_condition_clause": (
        "def f(a, b):\n    if a and b > 0:\n        return 1\n    return 0\n",
        "def f(a, b):\n    if b > 0:\n        return 1\n    return 0\n",
        "def f(a, b):\n    if a:\n        return 1\n    return b\n",
    ),
    "swap_and_or": (
        "def f(a, b):\n    return a and b > 0\n",
        "def f(a, b):\n    return a or b > 0\n",
        "def f(a, b):\n    return a > b\n",
    ),
    "is_vs_equality": (
        "def f(a, b):\n    return a == b\n",
        "def f(a, b):\n    return a is b\n",
        "def f(a):\n    return a == 1 or a is None or a != 'x'\n",
    ),
    "in_not_in": (
        "def f(a, b):\n    return a in b\n",
        "def f(a, b):\n    return a not in b\n",
        "def f(a, b):\n    return a == b\n",
    ),
    "none_vs_falsy": (
        "def f(a):\n    if a is None:\n        return 0\n    return a\n",
        "def f(a):\n    if not a:\n        return 0\n    return a\n",
        "def f(a):\n    if a > 1:\n        return 0\n    return a + 1\n",
    ),
    "drop_guard": (
        "def f(xs):\n    if not xs:\n        return 0\n    return sum(xs)\n",
        "def f(xs):\n    return sum(xs)\n",
        "def f(xs):\n    if xs:\n        xs = xs[1:]\n    if xs:\n        return 1\n    else:\n        return 2\n",
    ),
    "invert_if_else": (
        "def f(a):\n    if a:\n        return 1\n    else:\n        return 2\n",
        "def f(a):\n    if a:\n        return 2\n    else:\n        return 1\n",
        "def f(a):\n    if a:\n        return 1\n    else:\n        return 1\n",
    ),
    "add_spurious_guard": (
        "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n",
        "def f(xs):\n    total = 0\n    for x in xs:\n        if x:\n            total += x\n    return total\n",
        "def f(xs):\n    return len(xs)\n",
    ),
    "wrong_exception": (
        "def f(d, k):\n    try:\n        return d[k]\n    except KeyError:\n        return None\n",
        "def f(d, k):\n    try:\n        return d[k]\n    except IndexError:\n        return None\n",
        "def f(d, k):\n    try:\n        return d[k]\n    except Exception:\n        return None\n",
    ),
    "nudge_constant": (
        "def f(a):\n    return a * 10\n",
        "def f(a):\n    return a * 11\n",
        "def f(a, b):\n    return a & 0xFF or b * 1_000\n",
    ),
    "flip_boolean": (
        "def f(xs):\n    seen = False\n    for x in xs:\n        seen = seen or x\n    return seen\n",
        "def f(xs):\n    seen = True\n    for x in xs:\n        seen = seen or x\n    return seen\n",
        "def f(xs):\n    return sorted(xs, reverse=True)\n",
    ),
    "loop_range_off_by_one": (
        "def f(xs):\n    t = 0\n    for i in range(len(xs) - 1):\n        t += xs[i]\n    return t\n",
        "def f(xs):\n    t = 0\n    for i in range(len(xs)):\n        t += xs[i]\n    return t\n",
        "def f(xs, args):\n    for x in xs:\n        print(x, range(*args))\n",
    ),
    "index_off_by_one": (
        "def f(xs, n):\n    return xs[:n] + [xs[n - 1]]\n",
        "def f(xs, n):\n    return xs[:n - 1] + [xs[n - 1]]\n",
        "def f(xs: list[int], d, k):\n    y: dict[str, int] = {}\n    return xs[0] + d[k] + xs[1:] + y\n",
    ),
    "swap_arithmetic": (
        "def f(a, b):\n    return a + b\n",
        "def f(a, b):\n    return a - b\n",
        "def f(a):\n    return 'x' + a or '%s' % a\n",
    ),
    "swap_operands": (
        "def f(a, b):\n    return a - b\n",
        "def f(a, b):\n    return b - a\n",
        "def f(a, b):\n    return a + b or a - a or a - b * 2\n",
    ),
    "wrong_method": (
        "def f(xs, x):\n    xs.append(x)\n    return xs\n",
        "def f(xs, x):\n    xs.extend(x)\n    return xs\n",
        "def f(xs):\n    xs.sort()\n    return xs\n",
    ),
    "wrong_builtin": (
        "def f(xs):\n    return max(xs)\n",
        "def f(xs):\n    return min(xs)\n",
        "def f(xs, max):\n    return max(xs)\n",
    ),
    "swap_call_arguments": (
        "def f(a, b):\n    return divmod(a, b)\n",
        "def f(a, b):\n    return divmod(b, a)\n",
        "def f(a, b):\n    return max(a, b) + divmod(a, a) + pow(a, b=b) + setattr(a, 'x', b)\n",
    ),
    "flip_keyword_argument": (
        "def f(xs):\n    return sorted(xs, reverse=True)\n",
        "def f(xs):\n    return sorted(xs, reverse=False)\n",
        "def f(xs):\n    return sorted(xs, key=len)\n",
    ),
    "drop_keyword_argument": (
        "def f(xs):\n    return sorted(xs, key=len)\n",
        "def f(xs):\n    return sorted(xs)\n",
        "def f(xs, opts):\n    return sorted(xs, key=len, **opts)\n",
    ),
    "drop_statement": (
        "def f(xs, x):\n    xs.append(x)\n    return xs\n",
        "def f(xs, x):\n    return xs\n",
        "def f(xs):\n    y = xs.pop()\n    if y:\n        xs.clear()\n    return y\n",
    ),
    "duplicate_statement": (
        "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)  # keep\n    return out\n",
        "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)  # keep\n        out.append(x)\n    return out\n",
        "def f(xs):\n    out = set()\n    for x in xs:\n        out.add(x)\n        if x: out.append(x)\n    return out\n",
    ),
    "drop_break_continue": (
        "def f(xs):\n    r = None\n    for x in xs:\n        if x:\n            r = x\n            break\n    return r\n",
        "def f(xs):\n    r = None\n    for x in xs:\n        if x:\n            r = x\n    return r\n",
        "def f(xs):\n    for x in xs:\n        if x:\n            break\n    return xs\n",
    ),
    "return_inside_loop": (
        "def f(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n",
        "def f(xs):\n    t = 0\n    for x in xs:\n        t += x\n        return t\n",
        "def f(xs):\n    t = 0\n    for x in xs:\n        t += x\n    else:\n        t = 1\n    return t\n",
    ),
    "wrong_variable": (
        "def f(a: int, b: int):\n    c = a + b\n    return c * a\n",
        "def f(a: int, b: int):\n    c = a + b\n    return c * b\n",
        "def f(self, a: int, b: str):\n    return a * len(b) + self.x\n",
    ),
    "change_default": (
        "def f(a, strict=False, n=3):\n    return a if strict else n\n",
        "def f(a, strict=True, n=3):\n    return a if strict else n\n",
        "def f(a, b=None, c='x'):\n    return a or b or c\n",
    ),
    "mutable_default": (
        "def f(x, acc=None):\n    if acc is None:\n        acc = []\n    acc.append(x)\n    return acc\n",
        "def f(x, acc=[]):\n    acc.append(x)\n    return acc\n",
        "def f(x, acc=None):\n    if acc is None:\n        acc = make()\n    acc.append(x)\n    return acc\n",
    ),
    "late_binding_closure": (
        "def f(xs):\n    fs = []\n    for x in xs:\n        fs.append(lambda x=x: x * 2)\n    return fs\n",
        "def f(xs):\n    fs = []\n    for x in xs:\n        fs.append(lambda: x * 2)\n    return fs\n",
        "def f(x):\n    return lambda x=x: x\n",
    ),
    "shadowed_name": (
        "def f(items, total):\n    for item in items:\n        print(item)\n    return total\n",
        "def f(items, total):\n    for total in items:\n        print(total)\n    return total\n",
        "def f(items, total):\n    for item in items:\n        print(item, total)\n    return item\n",
    ),
}


def test_every_operator_has_a_case() -> None:
    assert {case.split("/")[0] for case in CASES} == set(CATALOGUE)


@pytest.mark.parametrize("case", sorted(CASES))
def test_operator_makes_its_bug(case: str) -> None:
    source, expected, _ = CASES[case]
    assert expected in _mutants(source, case.split("/")[0])


@pytest.mark.parametrize("case", sorted(CASES))
def test_operator_declines_where_it_cannot_apply(case: str) -> None:
    _, _, decline = CASES[case]
    assert _mutants(decline, case.split("/")[0]) == []


def test_negating_a_simple_comparison_uses_the_opposite_operator() -> None:
    source = "def f(a, b):\n    if a is None or b:\n        return 0 if a <= b < 3 else 1\n"
    corrupted = _mutants(source, "negate_condition")
    assert "def f(a, b):\n    if not (a is None or b):\n" in "".join(corrupted)
    source = "def f(a, b):\n    while a in b:\n        if a >= 2:\n            a -= 1\n"
    corrupted = "".join(_mutants(source, "negate_condition"))
    assert "while a not in b:" in corrupted and "if a < 2:" in corrupted
    assert "not a" not in corrupted


def test_catalogue_covers_every_category() -> None:
    assert len(CATALOGUE) >= 25
    hef = {op.hef_category for op in CATALOGUE.values()}
    assert hef == {
        "value misuse",
        "missing logic",
        "excess logic",
        "operator misuse",
        "variable misuse",
        "function misuse",
    }
    assert {op.odc_category for op in CATALOGUE.values()} == {"Assignment", "Checking", "Algorithm"}
    for name, op in CATALOGUE.items():
        assert op.name == name and op.odc_subcategory


def test_only_default_operators_touch_defaults() -> None:
    assert {n for n, op in CATALOGUE.items() if op.changes_defaults} == {
        "change_default",
        "mutable_default",
    }


@pytest.mark.parametrize(
    "source",
    [
        "import os\r\n\r\nclass C:\r\n\tdef m(self, xs):\r\n\t\tfor x in xs:\r\n\t\t\tself.n += x\r\n\t\treturn self.n",
        "X = 1\n\n# lead\n@staticmethod\ndef g(a, b):\n    '''Doc.\n\n  keeps   its text\n    '''\n    s = f'''{a}\n  raw'''\n    if a < b:\n        return s\n    return b  # tail\n# after\nY = 2\n",
        "def h(a):\r\n    if a:\r\n        return 1\n    return 2\r\n",
    ],
    ids=["crlf-tabs-no-final-newline", "decorated-multiline-strings", "mixed-newlines"],
)
def test_file_layout_outside_the_change_is_kept_byte_for_byte(source: str) -> None:
    tree = ast.parse(source)
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    qualname = "m.C.m" if node.name == "m" else f"m.{node.name}"
    mutants = generate_mutants(source, "m.py", qualname, node.lineno)
    assert len({m.operator for m in mutants}) >= 4
    start = min([d.lineno for d in node.decorator_list] + [node.lineno])
    before = "".join(split_lines(source)[: start - 1])
    after = "".join(split_lines(source)[node.end_lineno or 0 :])
    crlf_only = "\n" not in source.replace("\r\n", "")
    for mutant in mutants:
        corrupted = mutant.corrupted
        assert corrupted.startswith(before) and corrupted.endswith(after)
        assert apply_edit_script(corrupted, edit_script(source, corrupted)) == source
        assert corrupted.count("#") <= source.count("#"), "no comment added"
        if crlf_only:
            assert "\n" not in corrupted.replace("\r\n", ""), "CRLF file stays CRLF"


def _whole_file_render(
    source: str, path: str, change: Callable[[cst.FunctionDef], cst.FunctionDef]
) -> str:
    """libcst's render of the whole module with the function at ``path`` changed."""
    module = cst.parse_module(source)
    function = next(node for name, node in defs_in_order(module) if name == path)
    assert isinstance(function, cst.FunctionDef)
    return module.deep_replace(function, change(function)).code


def _hollowed(function: cst.FunctionDef) -> cst.FunctionDef:
    return function.with_changes(body=hollow_body(function.body))


def _guarded(function: cst.FunctionDef) -> cst.FunctionDef:
    """The body inside a new ``if True:`` block: new code, indented by the module's default."""
    block = cst.If(test=cst.Name("True"), body=function.body)
    return function.with_changes(body=cst.IndentedBlock(body=[block]))


def test_splice_rendering_matches_a_full_libcst_render() -> None:
    """The fast path (render only the function) and libcst's whole-module render agree."""
    source = "class C:\r\n    # lead\r\n    @property\r\n    def m(self):\r\n        return 1\r\n\r\n\r\nZ = 3"
    located = locate(source, "m.C.m", 4)
    assert located.splice is not None
    fast = located.with_function(_hollowed(located.function))
    assert fast == _whole_file_render(source, "C.m", _hollowed)
    assert fast == source.replace("return 1", "raise NotImplementedError")


TEXT_THEN_FUNCTION = """X = '''
  text'''
def f(a):
      '''Doc
    '''
      return a  # end
    # after
"""


@pytest.mark.parametrize(
    ("source", "path", "line"),
    [
        ("if X:\n  Y = 1\n\nclass C:\n    def m(self):\n        return 1\n", "C.m", 5),
        ("class C:\n\tdef m(self):\n\t\treturn 1\n", "C.m", 2),
        (
            "class C:\r\n    class D:\r\n        def m(self):\r\n            return 1\r\n",
            "C.D.m",
            3,
        ),
        (TEXT_THEN_FUNCTION, "f", 3),
        ("import os\n\ndef f(a): return a\n", "f", 3),
    ],
)
def test_a_function_parsed_alone_renders_new_code_as_the_whole_file_would(
    source: str, path: str, line: int
) -> None:
    """Its own lines are parsed alone, yet new code takes the file's indentation and newline."""
    located = locate(source, f"m.{path}", line)
    assert located.splice is not None
    assert located.module.code != source  # the function's own lines, not the file
    for change in (_guarded, _hollowed):
        rendered = located.with_function(change(located.function))
        assert rendered == _whole_file_render(source, path, change)


def test_bad_input_is_a_clear_error() -> None:
    source = "def f(a):\n    return a + 1\n"
    with pytest.raises(InputError, match="unknown operator.*no_such_op"):
        generate_mutants(source, "m.py", "m.f", 1, operators=["no_such_op"])
    with pytest.raises(TargetNotFound, match="no function m.g with its def on line 1"):
        generate_mutants(source, "m.py", "m.g", 1)
    with pytest.raises(TargetNotFound, match="does not parse"):
        generate_mutants("def f(:\n", "m.py", "m.f", 1)
    assert generate_mutants("def f():\n    pass\n", "m.py", "m.f", 1) == []


def test_keywords_next_to_parentheses_stay_valid() -> None:
    """``while(a)`` and ``a==b`` have no spaces to spare for a new ``not`` or ``is``."""
    source = "def f(a, b, xs):\n    while(a):\n        a -= 1\n    if(a==b):\n        return(a)\n    return a==b or(a in(xs))\n"
    corrupted = "".join(_mutants(source, "negate_condition") + _mutants(source, "is_vs_equality"))
    assert "while(not a):" in corrupted and "if(a!=b):" in corrupted
    assert "if(a is b):" in corrupted and "return a is b or(a in(xs))" in corrupted


def test_every_operator_class_is_in_the_catalogue_under_its_own_name() -> None:
    """Operators are found, not registered: each class in the package is one catalogue entry."""
    classes = Operator.__subclasses__()
    assert sorted(cls.name for cls in classes) == sorted(CATALOGUE)
    assert {type(op) for op in CATALOGUE.values()} == set(classes)
