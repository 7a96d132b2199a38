"""Counting the work a hostile input makes the site do, instead of timing it.

A wall-clock budget in a test fails when the machine is busy; a count does not. What these
bombs would multiply is counted at its source: YAML nodes composed and aliases followed
(PyYAML's pure-Python composer, which every loader here uses), and parameter draws made while
generating variants (``quizzes.engine.variants._draw``, once per parameter per draw).
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml.composer

from quizzes.engine import variants


@dataclass
class Work:
    yaml_nodes: int = 0
    yaml_aliases: int = 0
    draws: int = 0


def count_work(monkeypatch) -> Work:
    """Start counting; the counts grow until the test ends (monkeypatch undoes the wrappers)."""
    work = Work()
    compose_node = yaml.composer.Composer.compose_node
    draw = variants._draw

    def counted_compose_node(self, parent, index):
        work.yaml_nodes += 1
        if self.check_event(yaml.AliasEvent):
            work.yaml_aliases += 1
        return compose_node(self, parent, index)

    def counted_draw(*args, **kwargs):
        work.draws += 1
        return draw(*args, **kwargs)

    monkeypatch.setattr(yaml.composer.Composer, "compose_node", counted_compose_node)
    monkeypatch.setattr(variants, "_draw", counted_draw)
    return work
