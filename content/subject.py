"""This book's subject handed to the generic expression language: the physics module's public
names, its catalog dataclasses as trusted types, its formatters and its unit registry, and
the argument limits of each of its functions (``content/limits.py``).

``content/__init__.py`` calls ``configure`` once, so every user of ``content.expressions``
(the template engine, the chapter renderer) sees the physics; the language itself imports none.
"""

from __future__ import annotations


def configure() -> None:
    import content.physics as physics
    from content.expressions import configure_subject
    from content.limits import LIMITS
    from content.physics._lookup import reading_fields
    from content.physics.formatting import group_digits
    from content.physics.units import ureg

    configure_subject(
        names={name: getattr(physics, name) for name in physics.__all__},
        trusted_modules=("content.physics",),
        format_number=physics.format_number,
        format_quantity=physics.format_quantity,
        check_unit=ureg.parse_units,
        group_digits=group_digits,
        limits=LIMITS,
        reading_fields=reading_fields,
    )
