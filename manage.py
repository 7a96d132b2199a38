#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent


def development_defaults(environ, checkout: Path = CHECKOUT) -> dict[str, str]:
    """What `make` would export, for a development checkout only: the `.secret-key` that `make`
    generated, and plain HTTP. A checkout counts as development while DJANGO_ALLOWED_HOSTS is
    unset (the site then answers on loopback names alone) and DJANGO_DEBUG is not explicitly
    off; production sets its hosts (or DJANGO_DEBUG=0) and its own DJANGO_SECRET_KEY, and
    without that key the settings still refuse to start."""
    key_file = checkout / ".secret-key"
    if environ.get("DJANGO_SECRET_KEY") or "DJANGO_ALLOWED_HOSTS" in environ:
        return {}
    if environ.get("DJANGO_DEBUG", "1").strip().lower() in ("0", "false", "no", "off", ""):
        return {}
    if not key_file.is_file():
        return {}
    key = key_file.read_text().strip()
    if not key:
        return {}
    return {
        "DJANGO_SECRET_KEY": key,
        "DJANGO_INSECURE_HTTP": environ.get("DJANGO_INSECURE_HTTP", "1"),
    }


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.update(development_defaults(os.environ))
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
