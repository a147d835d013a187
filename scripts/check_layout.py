"""The package's shape, checked: stages import only stages below them, modules and functions stay readable.

Three rules, each printed as one line per breach (exit 1 when any):
- no import cycle between the stage folders of ``corrupt/`` (imports inside
  functions count: a lazy import is still a dependency);
- no module over 800 lines;
- no function over 100 lines.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import networkx as nx

MAX_MODULE_LINES = 800
MAX_FUNCTION_LINES = 100


def module_name(path: Path, package: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.Module, module: str, is_package: bool) -> set[str]:
    """Every ``corrupt.…`` module named by an import anywhere in the module."""
    names: set[str] = set()
    here = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            source = ".".join([*base, *([node.module] if node.module else [])])
            # ``from corrupt.x import y`` may name a module y: both count
            names.update([source, *(f"{source}.{alias.name}" for alias in node.names)])
    return {name for name in names if name.split(".")[0] == "corrupt"}


def stage_of(module: str, stages: set[str]) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in stages else None


def breaches(package: Path) -> list[str]:
    found: list[str] = []
    stages: nx.DiGraph[str] = nx.DiGraph()
    folders = {path.parent.name for path in package.glob("*/__init__.py")}
    for path in sorted(package.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(package.parent)
        lines = len(text.splitlines())
        if lines > MAX_MODULE_LINES:
            found.append(f"{where}: {lines} lines (at most {MAX_MODULE_LINES})")
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    found.append(
                        f"{where}:{node.lineno}: function {node.name} is {length} lines"
                        f" (at most {MAX_FUNCTION_LINES})"
                    )
        module = module_name(path, package)
        source = stage_of(module, folders)
        for target in sorted(imported(tree, module, path.name == "__init__.py")):
            sink = stage_of(target, folders)
            if source and sink and sink != source and not stages.has_edge(source, sink):
                stages.add_edge(source, sink, example=f"{module} imports {target}")
    for cycle in nx.simple_cycles(stages):
        steps = zip(cycle, [*cycle[1:], cycle[0]], strict=True)
        found.append(
            "stage import cycle: " + "; ".join(stages.edges[a, b]["example"] for a, b in steps)
        )
    return found


def main() -> int:
    package = Path(__file__).resolve().parent.parent / "corrupt"
    found = breaches(package)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
