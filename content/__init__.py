"""The book's subject matter, independent of Django: physics, chapters, question files.

Nothing under ``content`` imports Django or the apps; the apps import from here.
"""

from content import subject as _subject  # noqa: E402 - after the docstring, before any use

_subject.configure()
