"""Times (issue 27, item 6): no template draws a stored date or time except through `when`
(the reader's zone, named). The scan reads every template the site renders and every name of a
date-time column of every model; a template that prints one of them bare, or through Django's
`date`/`time` filters for people to read, fails here with its file and line. Machine-readable
uses (`|date:"c"` in an attribute) and relative ones (`|timesince`: "3 hours ago", the same in
every zone) are fine."""

from __future__ import annotations

import re
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.db import models

ROOTS = [Path(d) for d in settings.TEMPLATES[0]["DIRS"]]


def _templates() -> list[Path]:
    found = []
    for root in ROOTS:
        found += [p for p in root.rglob("*") if p.suffix in (".html", ".txt")]
    return sorted(set(found))


def _moment_names() -> set[str]:
    names = set()
    for model in apps.get_models():
        for field in model._meta.get_fields():
            if isinstance(field, models.DateTimeField):
                names.add(field.name)
    # Moments computed by services and presenters rather than stored under a column's name.
    return names | {"deadline", "before", "after", "last_activity", "expires", "moment"}


# Django's filters that turn a moment into text for people, zone unnamed (a day of a date
# field, like a filter's "from 3 Mar", has no zone to name and is not a moment).
HUMAN_DATE = r"\|\s*(date|time)(?!:\s*['\"]c['\"])"


def _patterns():
    names = "|".join(sorted(_moment_names(), key=len, reverse=True))
    moment = r"\{\{\s*[\w.]*\b(" + names + r")\s*"
    # printed bare, or through any filter but `when`/`when_text` (and the machine's "c")
    bare = re.compile(moment + r"(\}\}|\|\s*(?!when|date:\s*['\"]c)\w+)")
    return bare, re.compile(moment + HUMAN_DATE)


def test_every_stored_moment_a_template_prints_goes_through_when():
    bare, human = _patterns()
    problems = []
    for path in _templates():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for tag in re.findall(r"\{\{.*?\}\}", line):
                if human.search(tag) or bare.search(tag):
                    if "|timesince" in tag or "|timeuntil" in tag:
                        continue
                    problems.append(f"{path.relative_to(settings.BASE_DIR)}:{number}: {tag}")
    assert not problems, "dates drawn without `when`:\n" + "\n".join(problems)


def test_the_scan_finds_a_bare_date_and_a_date_filter():
    """The scan's own check: the patterns it refuses are found."""
    bare, human = _patterns()
    assert bare.search("{{ quiz.due_at }}") and bare.search("{{ v.published_at|default:'' }}")
    assert human.search('{{ k.datetime_created|date:"Y-m-d H:i" }}')
    assert not bare.search("{{ quiz.due_at|when }}") and not bare.search("{{ x.due_at|when_text }}")
    assert not bare.search('{{ attempt.deadline|date:"c" }}')
    assert not human.search("{{ attempt.deadline|date:'c' }}")
