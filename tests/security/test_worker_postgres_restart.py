"""The task worker survives a real PostgreSQL restart and outage (issue 33, S5).

The review stopped, restarted and made read-only the PostgreSQL under a running site: the
worker exited for good at the first error. Here a worker process runs against a throwaway
cluster of its own (so the suite's database is untouched); the cluster is stopped for a few
seconds and started again; a task enqueued afterwards must run, by the same worker process.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

ROOT = Path(__file__).resolve().parents[2]


def _pg_bin() -> Path | None:
    found = shutil.which("initdb")
    candidates = [Path(found).resolve().parent] if found else []
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    for candidate in candidates:
        if (candidate / "initdb").exists() and (candidate / "pg_ctl").exists():
            return candidate
    return None


def _as_postgres(*command) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *map(str, command)]
    return list(map(str, command))


class Cluster:
    def __init__(self, bin_dir: Path, folder: Path, port: int) -> None:
        self.bin, self.folder, self.port = bin_dir, folder, port
        self.url = f"postgres://postgres@127.0.0.1:{port}/worker_restart"

    def ctl(self, *args) -> None:
        subprocess.run(
            _as_postgres(self.bin / "pg_ctl", "-D", self.folder / "data", *args),
            check=True,
            capture_output=True,
        )

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self.ctl("-l", self.folder / "log", "-w", "-o", options, "start")

    def stop(self) -> None:
        self.ctl("-m", "immediate", "stop")

    def sql(self, statement: str, *, database: str = "worker_restart"):
        import psycopg

        with psycopg.connect(
            host="127.0.0.1", port=self.port, user="postgres", dbname=database, autocommit=True
        ) as conn:
            cursor = conn.execute(statement)
            return cursor.fetchall() if cursor.description else None


@pytest.fixture
def cluster():
    bin_dir = _pg_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL's initdb and pg_ctl are not installed")
    folder = Path(tempfile.mkdtemp(prefix="worker-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    subprocess.run(
        _as_postgres(bin_dir / "initdb", "-D", folder / "data", "-A", "trust", "-U", "postgres"),
        check=True,
        capture_output=True,
    )
    found = Cluster(bin_dir, folder, port)
    found.start()
    try:
        found.sql("CREATE DATABASE worker_restart", database="postgres")
        yield found
    finally:
        try:
            found.stop()
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(folder, ignore_errors=True)


def _manage(env, *args) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _wait_for(check, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            found = check()
        except Exception:  # noqa: BLE001 - the database may be down right now
            found = None
        if found:
            return found
        time.sleep(0.3)
    raise AssertionError(f"waited {seconds:g} s for {what}")


def test_the_worker_reconnects_after_postgresql_stops_and_restarts(cluster, tmp_path):
    env = {**os.environ, "DATABASE_URL": cluster.url, "DJANGO_LOG_LEVEL": "WARNING"}
    _manage(env, "migrate", "django_tasks_database", "--noinput", "-v0")
    _manage(env, "migrate", "health", "--noinput", "-v0")
    log = (tmp_path / "worker.log").open("w")
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "worker", "--interval", "0.2"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        _wait_for(
            lambda: cluster.sql("SELECT worker_id FROM health_workerheartbeat"), 60, "a heartbeat"
        )
        cluster.stop()
        time.sleep(3)  # stopped: the worker's queries fail, and it backs off
        assert worker.poll() is None, "the worker exited when PostgreSQL stopped"
        cluster.start()
        task_id = _manage(
            env,
            "shell",
            "-c",
            "from tests.security.worker_tasks import ping; print(ping.enqueue().id)",
        ).split()[-1]
        status = _wait_for(
            lambda: cluster.sql(
                "SELECT status, return_value::text FROM django_tasks_database_dbtaskresult "
                f"WHERE id = '{task_id}' AND status = 'SUCCESSFUL'"
            ),
            90,
            "the task enqueued after the restart to run",
        )
        assert status == [("SUCCESSFUL", '"pong"')]
        assert worker.poll() is None, "the worker that ran it is the one that saw the outage"
        state = cluster.sql("SELECT state, last_error FROM health_workerheartbeat")
        assert state[0][0] == "running"
    except AssertionError as failure:
        log.flush()
        raise AssertionError(f"{failure}\nworker log:\n{_tail(tmp_path)}") from None
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        log.close()
    assert "database error; trying again" in (tmp_path / "worker.log").read_text()


def _tail(folder: Path) -> str:
    return (folder / "worker.log").read_text()[-30000:]
