"""The book's subject matter, independent of Django: physics, chapters, question files.

Nothing under ``content`` imports Django or the apps; the apps import from here.
"""
