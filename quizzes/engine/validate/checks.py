"""Validation's toolbox, handed to each kind's ``validate`` (`Checks`): the failures collected
so far, the grader runner (a grader that raises is a failure, not a crash), and a memo per kind
for what its checks share across seeds.  The checks themselves live with each kind."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from quizzes.engine.model import Template
from quizzes.engine.validate.report import Collector


@dataclass
class Checks:
    template: Template
    failures: Collector
    grade_fn: Callable[..., Any]
    # kind name -> what that kind's checks keep across the seeds of one run
    memos: dict[str, Any] = field(default_factory=dict)
    # part id -> how many distinct variants had each key (for the rule fixed-key)
    keys: dict[str, Counter] = field(default_factory=dict)

    def count_key(self, part, answer, *, ordered: bool = False) -> None:
        """Count the key of a part whose answer is a choice among the author's ids: option ids
        (one, or a set), an ordering of item ids (``ordered``: the sequence is the key), or a
        matching (item, category) pairs, whose order does not matter."""
        if not isinstance(answer, (list, tuple)):
            key = str(answer)
        else:
            items = [":".join(x) if isinstance(x, (list, tuple)) else str(x) for x in answer]
            key = " > ".join(items) if ordered else ", ".join(sorted(items))
        self.keys.setdefault(part.id, Counter())[key] += 1

    def memo(self, name: str, build: Callable[[], Any]) -> Any:
        """The object kind `name` keeps across this run's seeds (made by `build` once)."""
        if name not in self.memos:
            self.memos[name] = build()
        return self.memos[name]

    def grade(self, seed: int, part, grader: str, **kwargs):
        """``grade_fn(grader, **kwargs)``, or None with a failure when the grader raises."""
        try:
            return self.grade_fn(grader, **kwargs)
        except Exception as exc:  # noqa: BLE001 - a grader crash is a validation failure
            self.failures.add(
                "grading", f"the grader raised {type(exc).__name__}: {exc}", seed, part.id
            )
            return None
