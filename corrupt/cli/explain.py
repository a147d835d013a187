"""``corrupt baseline --explain``: what intake detected, as a user reads it.

The test command and where it came from (CI, tox, nox, hatch, make, pytest's
configuration), the sources of the test requirements, the version given to
VCS-versioned builds, the Python the environment runs on and why, and the
requirements that did not install and were dropped, what went in beyond the
declared (extras only the built metadata names, modules collection missed, URL
requirements taken from the index), and the linter plugins left out. Printed before the suite runs and again once the environment exists,
so a red baseline is explained too.
"""

from __future__ import annotations

import shlex

from rich.console import Console
from rich.markup import escape

from corrupt.repos.installplan import discover_test_requirements
from corrupt.repos.models import Checkout
from corrupt.repos.suiteargs import test_command
from corrupt.repos.testcommands import DJANGO_PLUGIN
from corrupt.repos.testplan import plan_tests
from corrupt.repos.versions import version_files
from corrupt.sandboxes.local.environment import recipe_for
from corrupt.sandboxes.local.interpreters import declared_support, own_interpreter


def explain_plan(checkout: Checkout, console: Console) -> None:
    plan = plan_tests(checkout.path)
    argv, env = test_command(checkout.path)
    command = " ".join(
        [*(f"{k}={shlex.quote(v)}" for k, v in sorted(env.items())), shlex.join(argv)]
    )
    origin = plan.command_source or "nothing found: pytest's own configuration decides"
    lines = [
        f"test command: {command}",
        f"  from: {origin}",
    ]
    if plan.runner == "unittest":
        django = (
            " and pytest-django (Django's test command)" if DJANGO_PLUGIN in plan.packages else ""
        )
        lines.append(f"  a unittest suite, run through pytest's unittest support{django}")
    if plan.scripts:
        lines.append(
            f"  not collected, scripts named like tests (no test in them, code run at import): "
            f"{', '.join(plan.scripts)}"
        )
    if plan.linter_tests:
        lines.append(
            f"  not collected, test modules that run a linter or type checker: "
            f"{', '.join(plan.linter_tests)}"
        )
    found = discover_test_requirements(checkout.path)
    lines.append(f"test requirements from: {', '.join(found.sources) or 'nothing declared'}")
    if checkout.version:
        files = [path for path, _ in version_files(checkout.path)]
        written = f"; version files: {', '.join(files)}" if files else ""
        lines.append(f"version (git describe): {checkout.version}{written}")
    for line in lines:
        console.print(escape(line), highlight=False, soft_wrap=True)


def explain_environment(checkout: Checkout, console: Console, *, asked: bool = False) -> None:
    recipe = recipe_for(checkout)
    if not recipe:
        return
    console.print(
        escape(python_line(checkout, recipe, asked=asked)), highlight=False, soft_wrap=True
    )
    if recipe.get("packages_as_of"):
        console.print(
            f"packages: as released by {recipe['packages_as_of']} (the commit's date), "
            "the suite being red with today's",
            highlight=False,
        )
    dropped = recipe.get("dropped") or []
    text = ", ".join(map(str, dropped)) if dropped else "nothing"
    console.print(f"dropped requirements: {escape(text)}", highlight=False, soft_wrap=True)
    added = recipe.get("added") or []
    if added:
        text = ", ".join(map(str, added))
        console.print(f"added beyond the declared: {escape(text)}", highlight=False, soft_wrap=True)
    locales = recipe.get("locales") or []
    unmade = recipe.get("locales_unmade") or []
    if locales or unmade:
        text = ", ".join(map(str, locales)) or "none"
        if unmade:
            text += f"; not made: {', '.join(map(str, unmade))}"
        console.print(
            f"locales compiled for the suite: {escape(text)}", highlight=False, soft_wrap=True
        )
    console.print(
        "left out: pytest plugins that run linters and type checkers as tests "
        "(mypy, flake8, isort, pylint, black, ruff, pycodestyle, pydocstyle), "
        "pytest-perf's timings against upstream, and pytest-checkdocs' metadata build",
        highlight=False,
    )


def python_line(checkout: Checkout, recipe: dict[str, object], *, asked: bool) -> str:
    """Which interpreter the environment runs on, and why that one."""
    own = own_interpreter()
    label = recipe.get("python") or own.label
    where = recipe.get("python_executable") or own.executable
    if asked:
        why = "as --python asked"
    elif checkout.python is None:
        why = "corrupt's own"
    else:
        support = declared_support(checkout.path)
        excluded = support.specifier is not None and not support.specifier.contains(
            own.label, prereleases=True
        )
        cause = "excluded by" if excluded else "the suite being red on"
        why = f"{cause} corrupt's own {own.label}; the project supports {support.describe()}"
    return f"python: {label} ({where}), {why}"
