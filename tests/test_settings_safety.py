"""The settings refuse to run in production without a real secret, and pass check --deploy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STRONG_KEY = "k" * 20 + "-Zq8w3e9r0t1y2u3i4o5p6a7s8d9f0g1h2j3k4l5"


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    base.pop("DATABASE_URL", None)
    base.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=base,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_refuses_to_start_without_a_secret_key():
    result = _manage("check", DJANGO_DEBUG="0")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY is not set" in result.stderr


def test_production_refuses_the_development_key():
    result = _manage("check", DJANGO_DEBUG="0", DJANGO_SECRET_KEY="django-insecure-" + "x" * 60)
    assert result.returncode != 0
    assert "too weak" in result.stderr


def test_check_deploy_reports_nothing_in_production_configuration():
    result = _manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=STRONG_KEY,
        DJANGO_ALLOWED_HOSTS="course.example.org",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_debug_mode_runs_with_a_throwaway_key():
    result = _manage("check", DJANGO_DEBUG="1")
    assert result.returncode == 0, result.stderr
