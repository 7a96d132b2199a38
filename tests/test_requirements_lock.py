"""The lock files pin every installed package with its hashes, and agree with the human lists.

`requirements.txt` and `requirements-dev.txt` say which packages the project uses and why;
`make lock` (pip-tools) resolves them into `requirements.lock` (what a server installs) and
`requirements-dev.lock` (what `make venv` installs with `--require-hashes`). A pin changed in a
list without `make lock` would leave the venv on the old version unnoticed: these tests fail.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9._-]+)(?:\[[^\]]*\])?==([^\s;\\]+)")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def listed_pins(path: Path) -> dict[str, str]:
    """`name==version` lines of a human list, following `-r` includes."""
    pins: dict[str, str] = {}
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("-r "):
            pins.update(listed_pins(path.parent / line[3:].strip()))
        elif line:
            match = PIN.match(line)
            assert match, f"{path.name}: {raw!r} is not pinned with =="
            pins[canonical(match[1])] = match[2]
    return pins


def locked(path: Path) -> dict[str, tuple[str, int]]:
    """name -> (version, number of sha256 hashes) of a pip-compile lock."""
    entries: dict[str, tuple[str, int]] = {}
    current = None
    for line in path.read_text().splitlines():
        match = PIN.match(line)
        if match:
            current = canonical(match[1])
            entries[current] = (match[2], 0)
        elif current and line.strip().startswith("--hash=sha256:"):
            version, hashes = entries[current]
            entries[current] = (version, hashes + 1)
        elif line and not line.startswith(" "):
            current = None
    return entries


@pytest.mark.parametrize(
    "listed, lock",
    [("requirements.txt", "requirements.lock"), ("requirements-dev.txt", "requirements-dev.lock")],
)
def test_every_listed_pin_is_locked_at_the_same_version_with_hashes(listed, lock):
    pins, entries = listed_pins(ROOT / listed), locked(ROOT / lock)
    assert pins, listed
    stale = {
        name: (version, entries.get(name, ("missing", 0))[0])
        for name, version in pins.items()
        if entries.get(name, ("",))[0] != version
    }
    assert not stale, f"run `make lock`: {lock} differs from {listed} (listed, locked): {stale}"
    unhashed = sorted(name for name, (_, hashes) in entries.items() if hashes == 0)
    assert not unhashed, f"{lock} has packages without a hash: {unhashed}"


def test_the_dev_lock_pins_the_runtime_lock_unchanged():
    runtime, dev = locked(ROOT / "requirements.lock"), locked(ROOT / "requirements-dev.lock")
    differ = {
        name: (version, dev.get(name))
        for name, (version, _) in runtime.items()
        if dev.get(name, ("",))[0] != version
    }
    assert not differ, f"run `make lock`: the dev lock moved runtime packages: {differ}"


def test_the_installed_venv_is_exactly_the_dev_lock():
    """What `make venv` installed is the lock, nothing more (pip itself and the tools that build
    wheels aside), nothing less, at the locked versions."""
    entries = locked(ROOT / "requirements-dev.lock")
    installed = {
        canonical(dist.metadata["Name"]): dist.version for dist in metadata.distributions()
    }
    for tool in ("pip", "setuptools", "wheel"):
        installed.pop(tool, None)
    assert installed == {name: version for name, (version, _) in entries.items()}


def test_make_venv_installs_the_lock_requiring_hashes():
    makefile = (ROOT / "Makefile").read_text()
    assert "--require-hashes -r requirements-dev.lock" in makefile
    assert "$(VENV)/.installed: requirements.lock requirements-dev.lock" in makefile
