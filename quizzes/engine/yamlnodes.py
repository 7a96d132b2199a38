"""YAML with line numbers: a thin view over ``yaml.compose`` nodes for the template parser.

Every text is first checked by the one YAML guard (``content.plainyaml.check_plain``: no
anchors or aliases, bounded size and nesting), so composing it costs time linear in the text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from content.plainyaml import (  # noqa: F401 - the guard's names, re-exported for the engine
    MAX_CHARS,
    MAX_DEPTH,
    MAX_ITEMS,
    MAX_SCALAR_CHARS,
    PlainYAMLError,
    check_plain,
    safe_load,
)


@dataclass
class Loc:
    """A YAML node's value with the (1-based) line it starts on.

    ``text_line`` is where the text of a block scalar (``|``/``>``) begins, one line below the
    indicator, so live-text errors point at the right line.
    """

    value: Any
    line: int
    text_line: int
    children: dict[str, Loc] | list[Loc] | None = None
    duplicates: list[tuple[str, int]] = field(default_factory=list)

    def get(self, key: str) -> Loc | None:
        return self.children.get(key) if isinstance(self.children, dict) else None

    def keys(self) -> list[str]:
        return list(self.children) if isinstance(self.children, dict) else []

    def items(self) -> list[Loc]:
        return list(self.children) if isinstance(self.children, list) else []


def compose(text: str) -> Loc | None:
    """Compose ``text``; raise ``yaml.YAMLError`` (with ``problem_mark``) on bad YAML, and
    ``PlainYAMLError`` for what ``check_plain`` refuses."""
    check_plain(text)
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        return None if node is None else _wrap(node, loader)
    finally:
        loader.dispose()


def _wrap(node: yaml.Node, loader: yaml.SafeLoader) -> Loc:
    line = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        children: dict[str, Loc] = {}
        duplicates: list[tuple[str, int]] = []
        for key_node, value_node in node.value:
            key = str(loader.construct_object(key_node, deep=True))
            if key in children:
                duplicates.append((key, key_node.start_mark.line + 1))
            children[key] = _wrap(value_node, loader)
        value = {key: loc.value for key, loc in children.items()}
        return Loc(value, line, line, children, duplicates)
    if isinstance(node, yaml.SequenceNode):
        items = [_wrap(child, loader) for child in node.value]
        return Loc([loc.value for loc in items], line, line, items)
    value = loader.construct_object(node, deep=True)
    text_line = line + 1 if getattr(node, "style", None) in ("|", ">") else line
    return Loc(value, line, text_line)
