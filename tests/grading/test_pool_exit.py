"""A short process that started the grading pool exits cleanly: no traceback at interpreter exit.

The pool starts in the background (a command that grades formula answers starts it, as
`validate_questions` once did before validation moved into the studio's sandbox). A process
that ends while the fork server is still importing sympy used to wait up to 30 s in the pool's
exit hook and then print a FileNotFoundError from the start thread, which went on spawning
after multiprocessing had removed the fork server's socket directory.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The order a slow start produced by chance, made certain: the fork server "imports" until a
# multiprocessing finalizer opens the gate, and that finalizer runs after multiprocessing has
# removed the fork server's socket directory (priority -100); then it waits for the start.
DRIVER = """
import os, pathlib, threading

import django
django.setup()
from multiprocessing import util
from quizzes.grading import pool

def open_gate_then_let_the_start_finish():
    pathlib.Path(os.environ["HELD_FORK_SERVER_GATE"]).touch()
    for thread in threading.enumerate():
        if thread.name == "grading-pool-start":
            thread.join(60)

util.Finalize(None, open_gate_then_let_the_start_finish, exitpriority=-200)
pool.configure(preload=[*pool.current_settings().preload, "tests.grading.held_fork_server"])
pool.start_pool()
print("pool started:", pool._pool is not None)
"""


@pytest.mark.slow
def test_a_short_process_that_started_the_pool_exits_without_a_traceback(tmp_path):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "HELD_FORK_SERVER_GATE": str(tmp_path / "gate"),
        "GRADING_POOL_SIZE": "2",
    }
    env.pop("GRADING_INLINE", None)
    done = subprocess.run(
        [sys.executable, "-c", DRIVER],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "pool started: True" in done.stdout, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
