"""Panels that the apps built on courseware add to the home page under each of the reader's
offerings (a student's open work there).

courseware may not import those apps (the layers point the other way), so each registers a
provider from its AppConfig.ready: `provider(request, offering)` returns a panel (a template
name and its context) or None.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Panel:
    template: str
    context: dict = field(default_factory=dict)


_providers: list[Callable] = []


def register(provider: Callable) -> None:
    if provider not in _providers:
        _providers.append(provider)


def panels(request, offering) -> list[Panel]:
    if offering is None or not request.user.is_authenticated:
        return []
    return [panel for provider in _providers if (panel := provider(request, offering)) is not None]
