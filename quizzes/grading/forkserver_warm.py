"""Imported by the grading pool's fork server only (see `warming.PRELOAD`): importing it warms
sympy's lazy imports and caches once, so every worker forked from the server starts warm and
its own warm-up takes milliseconds instead of seconds."""

from .warming import warm_up

warm_up()
