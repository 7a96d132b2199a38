"""The grading pool stops quietly: Ctrl-C or a stop signal prints no traceback from its processes.

Ctrl-C in the terminal of `make run` sends SIGINT to the whole process group, the fork server
and the grading workers included; a worker whose parent is gone finds its pipe broken. Each
test starts a fresh process that starts the pool (as a web worker does), holds it in one state
(warm; fork server still importing; a worker still warming up), stops it as a terminal or a
service manager would, and reads everything the process group wrote to stderr. The process
itself handles its own KeyboardInterrupt quietly, as `runserver` does, so any traceback left is
the pool's.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

DRIVER = """
import os, signal, sys, time
# As in a terminal, even when the test runs as a background job (which ignores SIGINT).
signal.signal(signal.SIGINT, signal.default_int_handler)
from quizzes.grading import grade_in_pool, pool, start_pool

extra = os.environ.get("DRIVER_PRELOAD")
if extra:
    pool.configure(preload=[*pool.current_settings().preload, extra])
if os.environ.get("DRIVER_WARM_UP") == "held":
    from tests.grading import pool_hooks
    pool.configure(warm_up=pool_hooks.warm_up_held)
try:
    start_pool(wait=os.environ.get("DRIVER_WAIT") == "1")
    if os.environ.get("DRIVER_WAIT") == "1":
        grade = grade_in_pool("symbolic", response="2n", expected="n + n", variables=["n"])
        print("graded", grade.status, flush=True)
    print("serving", flush=True)
    time.sleep(120)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


def run_and_stop(tmp_path, *, env, stop, until=None, then=None, timeout=120):
    """Start the driver in its own process group, wait for "serving" (and for the file `until`),
    call `stop(process)`, touch the file `then`, and return (stdout, stderr) of the group."""
    environ = {**os.environ, "GRADING_POOL_SIZE": "1", **env}
    environ.pop("GRADING_INLINE", None)
    process = subprocess.Popen(
        [sys.executable, "-c", DRIVER],
        cwd=ROOT,
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        first = process.stdout.readline()
        deadline = time.monotonic() + 60
        while until is not None and not until.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        stop(process)
        if then is not None:
            then.touch()
        out, err = process.communicate(timeout=timeout)
        return first + out, err
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # anything of the group still alive
        except ProcessLookupError:
            pass
        process.wait()


def interrupt_group(process):
    os.killpg(process.pid, signal.SIGINT)


@pytest.mark.slow
def test_ctrl_c_with_a_warm_pool_prints_nothing_from_the_workers(tmp_path):
    out, err = run_and_stop(tmp_path, env={"DRIVER_WAIT": "1"}, stop=interrupt_group)
    assert "graded correct" in out and "interrupted" in out, out + err
    assert "Traceback" not in err, err
    assert "KeyboardInterrupt" not in err, err


@pytest.mark.slow
def test_ctrl_c_while_the_fork_server_imports_prints_nothing(tmp_path):
    entered, gate = tmp_path / "entered", tmp_path / "gate"
    env = {
        "DRIVER_PRELOAD": "tests.grading.held_fork_server",
        "HELD_FORK_SERVER_ENTERED": str(entered),
        "HELD_FORK_SERVER_GATE": str(gate),
    }
    out, err = run_and_stop(tmp_path, env=env, stop=interrupt_group, until=entered, then=gate)
    assert entered.exists(), "the fork server never reached the held import"
    assert "interrupted" in out, out + err
    assert "Traceback" not in err, err
    assert "KeyboardInterrupt" not in err, err


@pytest.mark.slow
def test_a_worker_still_warming_when_its_parent_is_stopped_exits_quietly(tmp_path):
    entered, gate = tmp_path / "entered", tmp_path / "gate"
    env = {
        "DRIVER_WARM_UP": "held",
        "HELD_WARM_UP_ENTERED": str(entered),
        "HELD_WARM_UP_GATE": str(gate),
    }

    def terminate_parent(process):
        process.send_signal(signal.SIGTERM)
        process.wait(30)

    out, err = run_and_stop(tmp_path, env=env, stop=terminate_parent, until=entered, then=gate)
    assert entered.exists(), "the worker never reached its held warm-up"
    assert "Traceback" not in err, err
    assert "BrokenPipeError" not in err, err
