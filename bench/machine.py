"""What the figures were measured on: date, CPU, cores, memory and software versions."""

from __future__ import annotations

import datetime
import os
import platform
import sqlite3
import subprocess


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gib() -> float | None:
    try:
        with open("/proc/meminfo") as info:
            for line in info:
                if line.startswith("MemTotal:"):
                    return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def postgres_version(pg_bin: str | None) -> str | None:
    if not pg_bin:
        return None
    try:
        out = subprocess.run(
            [os.path.join(pg_bin, "postgres"), "--version"], capture_output=True, text=True
        )
    except OSError:
        return None
    return out.stdout.strip().rsplit(" ", 1)[-1] or None


def describe(pg_bin: str | None = None) -> dict:
    import django
    import gunicorn
    import sympy

    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": _cpu_model(),
        "nproc": os.cpu_count(),
        "memory_gib": _memory_gib(),
        "python": platform.python_version(),
        "django": django.get_version(),
        "sqlite": sqlite3.sqlite_version,
        "postgresql": postgres_version(pg_bin),
        "gunicorn": gunicorn.__version__,
        "sympy": sympy.__version__,
        # Other work on the machine shows here; figures taken under load are noisier.
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
