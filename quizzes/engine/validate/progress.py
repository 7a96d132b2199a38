"""How far a long validation has got, and a way to stop it, across a process boundary.

The studio publishes in a background task, and the publication gate may run in another process
(a sandbox). So a validation reports its progress to a small file, which the task reads and
copies to the row the author's page polls, and it stops at the next seed once a file beside it
says so (the author pressed Cancel). `ProgressFile` is plain data: it pickles into any process.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field


class ValidationCancelled(Exception):
    """The validation was asked to stop; nothing it found counts."""


@dataclass
class ProgressFile:
    """Called with (seeds done, seeds in all) after each seed; writes them to ``path`` at most
    every ``every_s`` seconds (and always at the end), and raises `ValidationCancelled` once
    ``path + ".cancel"`` exists."""

    path: str
    every_s: float = 0.25
    last: float = field(default=0.0, repr=False)

    def __call__(self, done: int, total: int) -> None:
        if os.path.exists(self.path + ".cancel"):
            raise ValidationCancelled(f"cancelled after {done} of {total} seeds")
        now = time.monotonic()
        if done < total and now - self.last < self.every_s:
            return
        self.last = now
        partial = f"{self.path}.{os.getpid()}.part"
        with open(partial, "w", encoding="ascii") as out:
            out.write(f"{done} {total}")
        os.replace(partial, self.path)

    def read(self) -> tuple[int, int] | None:
        """(done, total) as last written, or None before the first write."""
        try:
            with open(self.path, encoding="ascii") as written:
                done, total = written.read().split()
            return int(done), int(total)
        except (OSError, ValueError):
            return None

    def cancel(self) -> None:
        with open(self.path + ".cancel", "w", encoding="ascii"):
            pass

    def remove(self) -> None:
        for path in (self.path, self.path + ".cancel"):
            try:
                os.remove(path)
            except OSError:
                pass
