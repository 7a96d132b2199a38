"""The layer contracts in pyproject.toml can fail: a planted forbidden import breaks them.

import-linter passing proves nothing unless a contract it checks would fail on the import it is
meant to forbid (an earlier contract allowed indirect imports and listed too few modules, so a
grader module importing `quizzes.models` still passed). Each case copies the checked packages
into a temporary folder, plants one import and runs `lint-imports` there.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("content", "courseware", "quizzes", "config", "lti", "health")
LINT = Path(sys.executable).with_name("lint-imports")


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("contracts")
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package,
            base / package,
            ignore=shutil.ignore_patterns("__pycache__", "*.yaml", "*.md", "*.txt", "*.html"),
        )
    shutil.copy(ROOT / "pyproject.toml", base / "pyproject.toml")
    return base


def _lint(base: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT), "--no-cache"],
        cwd=base,
        env={"PYTHONPATH": str(base), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _planted(tree: Path, tmp_path: Path, module: str, line: str) -> Path:
    copy = tmp_path / "tree"
    shutil.copytree(tree, copy)
    target = copy / module
    target.write_text(target.read_text() + "\n" + line + "\n")
    return copy


def test_the_copied_tree_keeps_every_contract(tree):
    result = _lint(tree)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        (
            "quizzes/grading/text.py",
            "from quizzes.models import Attempt  # noqa",
            "The grader and the template engine import no Django and no app",
        ),
        (
            "quizzes/engine/codes.py",
            "from quizzes.services import attempts  # noqa",
            "The grader and the template engine import no Django and no app",
        ),
        (
            "content/physics/roofline.py",
            "import django  # noqa",
            "The physics module and the content layer import no Django and no app",
        ),
        (
            "courseware/models.py",
            "import quizzes.models  # noqa",
            "courseware never imports quizzes",
        ),
        (
            "quizzes/services/grades.py",
            "import lti.models  # noqa",
            "The LMS integration sits on top: courseware and quizzes never import lti",
        ),
        (
            "health/heartbeat.py",
            "import quizzes.models  # noqa",
            "Health watches the site and imports none of its apps",
        ),
    ],
)
def test_a_planted_forbidden_import_breaks_its_contract(tree, tmp_path, module, line, contract):
    result = _lint(_planted(tree, tmp_path, module, line))
    assert result.returncode != 0
    assert f"{contract} BROKEN" in result.stdout, result.stdout
