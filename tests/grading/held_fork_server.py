"""Preloaded by the fork server in the pool-exit tests: its import waits until the file named by
``HELD_FORK_SERVER_GATE`` exists, so the test decides when the fork server starts serving (a
server still importing sympy when a short command ends, or when Ctrl-C arrives). It first
touches ``HELD_FORK_SERVER_ENTERED``, if set, so the test knows the server is held. Test-only,
like pool_hooks."""

import os
import time
from pathlib import Path

_gate = os.environ.get("HELD_FORK_SERVER_GATE")
if _gate:
    if os.environ.get("HELD_FORK_SERVER_ENTERED"):
        Path(os.environ["HELD_FORK_SERVER_ENTERED"]).touch()
    for _ in range(3000):  # at most about a minute, should the test never open the gate
        if os.path.exists(_gate):
            break
        time.sleep(0.02)
