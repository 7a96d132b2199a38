"""Preloaded by the fork server in test_pool_exit.py: its import waits until the file named by
``HELD_FORK_SERVER_GATE`` exists, so the test decides when the fork server starts serving (a
server still importing sympy when a short command ends). Test-only, like pool_hooks."""

import os
import time

_gate = os.environ.get("HELD_FORK_SERVER_GATE")
if _gate:
    for _ in range(3000):  # at most about a minute, should the test never open the gate
        if os.path.exists(_gate):
            break
        time.sleep(0.02)
