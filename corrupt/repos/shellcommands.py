"""Shell scripts read as the simple commands they run, without running them.

CI steps, Makefile recipes and the tree's own test scripts are shell: a test
command hides behind continuation lines, ``&&`` chains, variables the script
sets, and wrappers (``uv run``, ``poetry run``, ``time``, interpreter flags).
These two readers take that shell apart into plain argument lists, so the
test plan can tell a pytest run or an install line by its first words.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

# A shell line that only assigns a variable a value with no expansion in it.
SHELL_ASSIGNMENT = re.compile(r"^(?:export\s+)?(?P<name>[A-Za-z_]\w*)=(?P<value>[^$`;&|<>()\s]*)$")
# A whole word that is only a variable the script never assigns a plain value (one set by a
# command substitution, the CI's environment, the script's arguments ``$@``): its value is
# unknowable here, and options passed that way (``coverage run $branch_option -m pytest``)
# are mostly empty or reporting flags, so as an argument it reads as empty.
UNKNOWN_WORD = re.compile(r"\$(?:\{[A-Za-z_]\w*\}|[A-Za-z_]\w*|[@*])")
# A program's path looked up in a command substitution: ``\`which django-admin\``` runs
# django-admin, as the program named does.
LOOKED_UP = re.compile(
    r"`\s*(?:which|command -v)\s+([\w.-]+)\s*`|\$\(\s*(?:which|command -v)\s+([\w.-]+)\s*\)"
)
# Console programs a command may run through the interpreter by their path (django-mptt's
# tox: ``python -Wd {envbindir}/coverage run``, the path read as the program's name).
PROGRAMS_RUN_BY_PATH = frozenset({"coverage", "pytest", "py.test", "django-admin", "nose2"})
SHELL_VARIABLE = re.compile(r"\$(?:\{(?P<b>[A-Za-z_]\w*)\}|(?P<a>[A-Za-z_]\w*))")
UV_RUN_OPTIONS_WITH_VALUE = frozenset(
    {"--with", "--extra", "--group", "--only-group", "--python", "-p", "--package",
     "--from", "--with-requirements", "--env-file", "--directory", "--project", "-E"}
)  # fmt: skip


def shell_commands(script: str) -> Iterator[list[str]]:
    """Simple commands of a shell script: continuation lines joined, split at ; && || |.

    A variable the script assigns a plain value (``REQUIREMENTS="requirements.txt"``,
    ``export PREFIX=""``) is replaced by the last value assigned before its use, so
    ``"$PIP" install -r "$REQUIREMENTS"`` reads as the install it is; any other
    variable standing alone as an argument is dropped (:data:`UNKNOWN_WORD`). One the
    script exports goes with every later command as a leading ``NAME=value`` word, as
    the command's environment: django-waffle's CI exports ``DJANGO_SETTINGS_MODULE``
    before it runs Django's tests.
    """
    text = re.sub(r"\\\r?\n", " ", script)
    text = re.sub(r"\$\{\{.*?\}\}", "$GH", text)  # a GitHub expression is one unknown word
    variables: dict[str, str] = {}
    exported: dict[str, str] = {}
    for line in text.splitlines():
        line = LOOKED_UP.sub(lambda m: m[1] or m[2], _substitute(line.strip(), variables))
        if not line or line.startswith("#"):
            continue
        assigned = SHELL_ASSIGNMENT.match(line)
        if assigned:
            try:
                variables[assigned["name"]] = " ".join(shlex.split(assigned["value"]))
            except ValueError:
                variables.pop(assigned["name"], None)
            if line.startswith("export") and assigned["name"] in variables:
                exported[assigned["name"]] = variables[assigned["name"]]
            continue
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>()")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        try:
            tokens = list(lexer)
        except ValueError:  # an unclosed quote: not a command we can read
            continue
        environment = [f"{name}={value}" for name, value in exported.items()]
        current: list[str] = []
        for token in tokens:
            if token and set(token) <= set(";&|()"):
                if current:
                    yield [*environment, *current]
                current = []
            elif current and UNKNOWN_WORD.fullmatch(token):
                continue  # an argument no file says the value of: read as empty
            else:
                current.append(token)
        if current:
            yield [*environment, *current]


def _substitute(line: str, variables: dict[str, str]) -> str:
    """``$NAME`` and ``${NAME}`` of the known variables replaced; others are left as they are."""
    if "$" not in line:
        return line
    return SHELL_VARIABLE.sub(lambda m: variables.get(m["a"] or m["b"], m[0]), line)


def unwrap(argv: list[str]) -> list[str]:
    """Drop what only wraps the command: env assignments, ``uv run``, ``poetry run``, ``time``..."""
    words = [w for w in argv if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w)]
    while words:
        head = Path(words[0]).name
        if head in ("time", "xvfb-run", "sudo", "exec", "env"):
            words = words[1:]
        elif head in ("uv", "poetry", "pdm", "pipenv", "rye", "uvx", "pipx"):
            rest = words[1:]
            if rest[:1] == ["run"]:
                rest = rest[1:]
            elif rest[:2] == ["tool", "run"]:
                rest = rest[2:]
            elif head not in ("uvx", "pipx"):
                break
            while rest and rest[0].startswith("-"):  # uv run --with x, --extra test
                takes = rest[0] in UV_RUN_OPTIONS_WITH_VALUE and "=" not in rest[0]
                rest = rest[2:] if takes else rest[1:]
            words = rest
        elif re.match(r"^(python|pypy)[\d.]*$", head):
            rest = words[1:]
            while rest and re.match(r"^-[BbEIOsSuWX]", rest[0]):  # interpreter flags
                rest = rest[2:] if rest[0] in ("-W", "-X") else rest[1:]
            if rest[:1] and rest[0] in PROGRAMS_RUN_BY_PATH:
                words = rest  # ``python -Wd {envbindir}/coverage run``: the program itself
                continue
            words = ["python", *rest]
            break
        else:
            break
    return words
