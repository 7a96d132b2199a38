"""The one guard for YAML that people write: templates, quiz files and chapter front matter.

Every such text is checked by ``check_plain`` before PyYAML builds anything from it: anchors
and aliases are refused (a few hundred bytes of nested aliases expand to gigabytes: "billion
laughs"), and the size of the text, its nesting, its lists, mappings and strings are bounded.
The check reads PyYAML's event stream, which never expands an alias, so it costs time linear in
the text. Pure Python, so the engine and the chapter reader share it.
"""

from __future__ import annotations

import yaml

# Far above any real template or quiz file (the largest in the bank is under 5 kB).
MAX_CHARS = 200_000
MAX_DEPTH = 20
MAX_ITEMS = 1_000  # entries of one list or one mapping
MAX_SCALAR_CHARS = 20_000


class PlainYAMLError(yaml.MarkedYAMLError):
    """A YAML feature or size the bank refuses; ``problem_mark`` names the line."""

    def __init__(self, problem: str, mark=None):
        super().__init__(problem=problem, problem_mark=mark)

    def __str__(self) -> str:
        line = f"line {self.problem_mark.line + 1}: " if self.problem_mark is not None else ""
        return line + self.problem


def check_plain(text: str) -> None:
    """Raise ``PlainYAMLError`` for anchors, aliases, or a text beyond the bank's bounds.

    Raises ``yaml.YAMLError`` for text that is not YAML at all.
    """
    if len(text) > MAX_CHARS:
        raise PlainYAMLError(f"the file is longer than {MAX_CHARS:,} characters")
    open_collections: list[list] = []  # [entries so far, 2 for a mapping (key and value)]
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        mark = event.start_mark
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise PlainYAMLError(
                "anchors and aliases (&name, *name, <<: *name) are not allowed; "
                "write each value out in full",
                mark,
            )
        if isinstance(event, (yaml.ScalarEvent, yaml.CollectionStartEvent)) and open_collections:
            inner = open_collections[-1]
            inner[0] += 1
            if inner[0] > MAX_ITEMS * inner[1]:
                raise PlainYAMLError(f"a list or mapping has more than {MAX_ITEMS:,} entries", mark)
        if isinstance(event, yaml.ScalarEvent) and len(event.value) > MAX_SCALAR_CHARS:
            raise PlainYAMLError(f"a value is longer than {MAX_SCALAR_CHARS:,} characters", mark)
        if isinstance(event, yaml.CollectionStartEvent):
            open_collections.append([0, 2 if isinstance(event, yaml.MappingStartEvent) else 1])
            if len(open_collections) > MAX_DEPTH:
                raise PlainYAMLError(f"nested more than {MAX_DEPTH} levels deep", mark)
        elif isinstance(event, yaml.CollectionEndEvent):
            open_collections.pop()


def safe_load(text: str):
    """``yaml.safe_load`` of a text that passed ``check_plain``."""
    check_plain(text)
    return yaml.safe_load(text)
