"""A throwaway PostgreSQL cluster on a free loopback port, as `.ci/run` starts one.

`with cluster() as pg:` gives `pg.url(dbname)`, `pg.restart()` and `pg.bin`; the cluster is
stopped and its folder removed on leaving, even after an error or Ctrl-C.  As root the server
runs as the `postgres` user (via runuser), since PostgreSQL refuses to run as root.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def find_bin() -> str | None:
    initdb = shutil.which("initdb")
    candidates = [str(Path(initdb).resolve().parent)] if initdb else []
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    for folder in candidates:
        if os.access(Path(folder) / "initdb", os.X_OK) and os.access(
            Path(folder) / "pg_ctl", os.X_OK
        ):
            return folder
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, pg_bin: str, port: int | None = None):
        self.bin = pg_bin
        # A given port (a helper's own on a shared machine), else any free one.
        self.port = port or free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="bench-pg."))
        self.data = self.dir / "data"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        command = [str(Path(self.bin) / args[0]), *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, check=check, capture_output=True, text=True)

    def start(self) -> None:
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync")
        options = (
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c max_connections=400 -c shared_buffers=256MB"
        )
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.dir / "log"),
            "-w",
            "-o",
            options,
            "start",
        )

    def restart(self) -> None:
        """`pg_ctl restart` (fast shutdown: open connections are cut)."""
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.dir / "log"),
            "-m",
            "fast",
            "-w",
            "restart",
        )

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop", check=False)
        shutil.rmtree(self.dir, ignore_errors=True)

    def create_database(self, name: str) -> str:
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)
        return self.url(name)

    def url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"


@contextlib.contextmanager
def cluster(port: int | None = None):
    pg_bin = find_bin()
    if pg_bin is None:
        raise RuntimeError("PostgreSQL is not installed (initdb and pg_ctl not found)")
    running = Cluster(pg_bin, port)
    try:
        running.start()
        yield running
    finally:
        running.stop()
