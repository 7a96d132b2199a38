"""`setup_site` belongs to the quizzes app and runs the commands it imports, in order."""

from __future__ import annotations

import pytest
from django.core.management import call_command, get_commands

from quizzes.management.commands import setup_site

pytestmark = pytest.mark.django_db


def test_setup_site_is_a_quizzes_command_running_the_loaders_it_imports(monkeypatch):
    assert get_commands()["setup_site"] == "quizzes"  # not courseware: it depends on quizzes
    ran = []

    def record(command, **options):
        ran.append((type(command).__module__.rsplit(".", 1)[-1], options.get("students")))

    monkeypatch.setattr(setup_site, "call_command", record)
    call_command("setup_site", students=3, port="8123")
    assert ran == [("sync_content", None), ("sync_questions", None), ("seed_demo", 3)]
