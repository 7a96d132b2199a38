"""Panels that the apps built on courseware add to the course home page (a student's open work).

courseware may not import those apps (the layers point the other way), so each registers a
provider from its AppConfig.ready: `provider(request, course)` returns a panel (a template name
and its context) or None.
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


def panels(request, course) -> list[Panel]:
    if course is None or not request.user.is_authenticated:
        return []
    return [panel for provider in _providers if (panel := provider(request, course)) is not None]
