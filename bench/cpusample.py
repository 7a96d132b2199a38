"""CPU seconds each kind of process used during a load run, read from /proc (Linux), and the
per-request-kind totals `bench.cpuwsgi`'s workers wrote, added up.

`Sampler(roles)` is a thread that reads every process's CPU time (user + system) every second
and sorts it by role: the gunicorn servers and their workers (the pids the harness started and
their children), the grading pool (the workers' children), PostgreSQL's backends, Redis, and the
simulated class (the harness's own client process). A process first seen during the run counts
from zero; one that ends between two reads loses its last second, which the totals state as
their limit. Where /proc is missing the sampler reports nothing.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

PROC = Path("/proc")
# How often each worker of `bench.cpuwsgi` (which imports the site, so is not imported here)
# writes its per-kind totals.
DUMP_EVERY_S = 1.0


def worker_totals(folder: Path, files: str = "worker-*.json") -> dict:
    """{kind: {n, cpu_s, cpu_ms, wall_ms}} over the files `bench.cpuwsgi`'s workers wrote
    (`files="views-*.json"`: the same by view)."""
    totals: dict[str, list[float]] = {}
    for path in folder.glob(files):
        for kind, (n, cpu, wall) in json.loads(path.read_text()).items():
            entry = totals.setdefault(kind, [0, 0.0, 0.0])
            entry[0], entry[1], entry[2] = entry[0] + n, entry[1] + cpu, entry[2] + wall
    return {
        kind: {"n": int(n), "cpu_s": cpu, "cpu_ms": cpu / n * 1000, "wall_ms": wall / n * 1000}
        for kind, (n, cpu, wall) in sorted(totals.items())
        if n
    }


def _stat(pid: int) -> tuple[str, int, float] | None:
    """(command name, parent pid, CPU seconds) of a process, or None if it is gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    name = text[text.index("(") + 1 : text.rindex(")")]
    fields = text[text.rindex(")") + 2 :].split()
    tick = os.sysconf("SC_CLK_TCK")
    return name, int(fields[1]), (int(fields[11]) + int(fields[12])) / tick


class Sampler(threading.Thread):
    """Samples until `stop()`; `totals()` gives {role: CPU seconds} and the seconds sampled."""

    def __init__(
        self,
        *,
        servers: list[int],
        client: int | None = None,
        interval: float = 1.0,
        named: dict[int, str] | None = None,
    ):
        super().__init__(daemon=True, name="cpu-sampler")
        self.servers, self.client, self.interval = set(servers), client, interval
        # Other processes of the harness by pid, each under a role of its own (with its
        # children): the task worker, the load generator's helpers.
        self.named = dict(named or {})
        self.first: dict[int, tuple[str, float]] = {}
        self.last: dict[int, float] = {}
        self.started = self.ended = time.monotonic()
        self._halt = threading.Event()
        self._baseline = True  # the first read: processes already running count from here

    def _role(self, pid: int, name: str, parents: dict[int, int]) -> str | None:
        if pid == self.client:
            return "simulated class"
        if pid in self.named:
            return self.named[pid]
        if parents.get(pid) in self.named:
            return self.named[parents[pid]]
        if name.startswith("postgres"):
            return "PostgreSQL"
        if name.startswith("redis"):
            return "Redis"
        chain, up = [], parents.get(pid)
        while up and up > 1 and len(chain) < 6:
            chain.append(up)
            up = parents.get(up)
        if pid in self.servers or (chain and chain[0] in self.servers):
            return "gunicorn"
        if any(p in self.servers for p in chain):
            return "grading pool"
        return None

    def _read(self) -> None:
        stats = {}
        for entry in PROC.iterdir():
            if entry.name.isdigit():
                found = _stat(int(entry.name))
                if found:
                    stats[int(entry.name)] = found
        parents = {pid: parent for pid, (_, parent, _) in stats.items()}
        for pid, (name, _, cpu) in stats.items():
            if pid not in self.first:
                role = self._role(pid, name, parents)
                if role is None:
                    continue
                self.first[pid] = (role, cpu if self._baseline else 0.0)
            self.last[pid] = cpu
        self._baseline = False

    def run(self) -> None:
        if not PROC.exists():
            return
        self.started = time.monotonic()
        self._read()
        while not self._halt.wait(self.interval):
            self._read()
        self._read()
        self.ended = time.monotonic()

    def stop(self) -> dict:
        self._halt.set()
        self.join(10)
        return self.totals()

    def totals(self) -> dict:
        roles: dict[str, float] = {}
        for pid, (role, start) in self.first.items():
            roles[role] = roles.get(role, 0.0) + max(0.0, self.last.get(pid, start) - start)
        seconds = self.ended - self.started
        return {
            "seconds": seconds,
            "cpu_s": dict(sorted(roles.items(), key=lambda kv: -kv[1])),
            "cores": os.cpu_count(),
        }
