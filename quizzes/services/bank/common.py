"""What the bank's readers and writers share: the error type, hashing and suggestions."""

from __future__ import annotations

import difflib
import hashlib


class BankError(Exception):
    """The bank has problems; ``problems`` lists each as 'file, line N: message'."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _close(word: str, candidates: set[str]) -> str | None:
    match = difflib.get_close_matches(word, sorted(candidates), n=1)
    return match[0] if match else None
