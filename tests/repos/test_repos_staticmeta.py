"""The dist-info a project's ``[project]`` table declares, for a project left unbuilt."""

from __future__ import annotations

from email import message_from_string
from pathlib import Path

from corrupt.repos.staticmeta import static_dist


def project(root: Path, text: str) -> Path:
    (root / "pyproject.toml").write_text(text)
    (root / "README.md").write_text("# Tool\n")
    return root


def test_a_dynamic_version_is_the_pinned_commits_and_entry_points_are_kept(tmp_path):
    root = project(
        tmp_path,
        """
[project]
name = "Jaraco.Tool"
dynamic = ["version"]
readme = "README.md"
dependencies = ["six; python_version < '4'"]
[project.scripts]
tool = "jaraco.tool:main"
[project.entry-points."tool.plugins"]
zip = "jaraco.tool.zip"
[tool.setuptools_scm]
""",
    )
    dist = static_dist(root, "4.1.1.dev3")
    assert dist is not None and dist.folder == "jaraco_tool-4.1.1.dev3.dist-info"
    meta = message_from_string(dist.files["METADATA"])
    assert (meta["Name"], meta["Version"]) == ("Jaraco.Tool", "4.1.1.dev3")
    assert meta.get_all("Requires-Dist") == ['six; python_version < "4"']
    assert dist.files["entry_points.txt"] == (
        "[console_scripts]\ntool = jaraco.tool:main\n\n[tool.plugins]\nzip = jaraco.tool.zip\n\n"
    )
    assert dist.files["RECORD"].splitlines() == [
        f"{dist.folder}/{name},,"
        for name in ("METADATA", "INSTALLER", "entry_points.txt", "RECORD")
    ]
    # git gave no version: the one every build here is handed then
    unversioned = static_dist(root, None)
    assert unversioned is not None
    assert message_from_string(unversioned.files["METADATA"])["Version"] == "0.0.0"


def test_no_table_or_an_invalid_one_claims_nothing(tmp_path):
    assert static_dist(project(tmp_path, "[tool.black]\n"), "1.0") is None
    assert static_dist(project(tmp_path, '[project]\nname = "x"\nversion = 3\n'), "1.0") is None
    missing_readme = '[project]\nname = "x"\nversion = "1"\nreadme = "NOPE.md"\n'
    assert static_dist(project(tmp_path, missing_readme), "1.0") is None
