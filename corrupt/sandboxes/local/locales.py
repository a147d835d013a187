"""Locales a suite needs and the host lacks, compiled where only its runs see them.

Generating a locale system-wide (``locale-gen``) needs root and changes the
host. glibc also reads compiled locales from the folders ``LOCPATH`` names,
and ``localedef`` compiles one from the C library's own sources
(``/usr/share/i18n``) into any folder, without privileges: so an environment
gets a folder of its own, next to its venv, that its boxes see read-only. With
``LOCPATH`` set glibc skips the system's locale archive, so once one wanted
locale is missing every wanted one is compiled there (the host's, too), and
``/usr/lib/locale`` follows on the path for C.UTF-8.

``localedef`` runs on the host, not in a box: it reads system files only, and
the names it is given are checked against the sources' list of supported
locales first.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

I18N = Path("/usr/share/i18n")
SYSTEM_LOCALES = "/usr/lib/locale"
COMPILE_TIMEOUT = 120.0


@dataclass
class Locales:
    """What became of the wanted locales: compiled into ``folder``, or why not."""

    folder: Path | None = None  # None: the host had them all, or none could be compiled
    made: list[str] = field(default_factory=list)
    unmade: list[str] = field(default_factory=list)  # "name (why)"


def locale_env(folder: str | Path | None) -> dict[str, str]:
    """What a run of an environment with compiled locales in ``folder`` is given."""
    return {"LOCPATH": f"{folder}:{SYSTEM_LOCALES}"} if folder else {}


def provide_locales(wanted: list[str], folder: Path, *, sources: Path = I18N) -> Locales:
    """Compile ``wanted`` into ``folder`` unless the host has every one of them."""
    if not wanted or set(map(_key, wanted)) <= set(map(_key, _host_locales())):
        return Locales()
    supported = _supported(sources)
    if not supported or shutil.which("localedef") is None:
        return Locales(unmade=[f"{name} (no localedef or {sources})" for name in wanted])
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    result = Locales(folder=folder)
    for name in wanted:
        found = supported.get(_key(name))
        if found is None:
            result.unmade.append(f"{name} (not among {sources / 'SUPPORTED'})")
            continue
        spelled, charmap = found
        why = _compile(spelled, charmap, folder / _folder_name(name, charmap), sources)
        if why:
            result.unmade.append(f"{name} ({why})")
        else:
            result.made.append(name)
    if not result.made:
        shutil.rmtree(folder, ignore_errors=True)
        result.folder = None
    return result


def _compile(spelled: str, charmap: str, into: Path, sources: Path) -> str | None:
    """Run localedef; the reason it failed, or None."""
    base, _, modifier = spelled.partition("@")
    source = base.partition(".")[0] + (f"@{modifier}" if modifier else "")
    argv = ["localedef", "--no-archive", "-c", "-i", source, "-f", charmap, str(into)]
    env = {"PATH": "/usr/bin:/bin", "I18NPATH": str(sources)}
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=COMPILE_TIMEOUT, env=env, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"localedef: {exc}"
    if (into / "LC_CTYPE").is_file():  # -c writes despite warnings, and then exits 1
        return None
    lines = (done.stderr or done.stdout).strip().splitlines()
    return f"localedef: {lines[-1] if lines else f'exit {done.returncode}'}"


def _folder_name(name: str, charmap: str) -> str:
    """The folder glibc looks in: ``de_DE.utf8`` for de_DE.UTF-8, as locale-gen names it."""
    base, _, modifier = name.partition("@")
    territory, dot, _ = base.partition(".")
    codeset = "." + re.sub(r"[^a-z0-9]", "", charmap.lower()) if dot else ""
    return territory + codeset + (f"@{modifier}" if modifier else "")


def _key(name: str) -> str:
    """One spelling per locale: de_DE.UTF-8, de_DE.utf8 and de_DE.utf-8 are one."""
    base, _, modifier = name.partition("@")
    territory, dot, codeset = base.partition(".")
    codeset = re.sub(r"[^a-z0-9]", "", codeset.lower())
    return territory + (f".{codeset}" if dot else "") + (f"@{modifier}" if modifier else "")


def _supported(sources: Path) -> dict[str, tuple[str, str]]:
    """The sources' ``SUPPORTED`` list: key -> (its spelling there, its charmap)."""
    try:
        text = (sources / "SUPPORTED").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    found = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) == 2 and not line.startswith("#"):
            found[_key(words[0])] = (words[0], words[1])
    return found


def _host_locales() -> list[str]:
    try:
        done = subprocess.run(
            ["locale", "-a"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    return done.stdout.split()
