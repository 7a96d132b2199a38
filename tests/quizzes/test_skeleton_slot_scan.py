"""The templates a fresh question section is drawn from write every slotted value only in the
form the section skeleton (`quizzes.presenters.skeletons`) can fill: as a plain value.

A skeleton is drawn once with a marker in each slot (the variant's texts, the ids, a kind's
string facts, the student's typed text) and filled per view with each student's values, written
as `{{ value }}` writes them. So a template that compares a slotted value, filters it (`upper`,
`length`, `escapejs`), iterates it, passes it to a filter or a tag, draws every later student
the branch or the transformation of the marker, not of their own value; the check on the second
section refuses a skeleton only when that section's value happens to differ. These scans read
the templates' parsed nodes and fail on any such use, in every kind's input template and in the
section itself. Allowed: `{{ value }}`, `default`/`default_if_none` (a slotted value is never
empty: an empty one is keyed, not slotted), an alias of it by `{% with %}` or
`{% include ... with %}`, and a bare truth test (`{% if value %}`, `{% firstof %}`).

The other half of the same trust: every value those templates read and do not slot must be in
the skeleton's key (`skeletons._shape`), or the first section of a key would be shown to every
later student. The walk records every path read, each must be a slot or one of `SHAPED`, and
changing each of `SHAPED`'s fields on a real block changes its key. The scan is
`tests/quizzes/slot_scan.py`.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

import content
from quizzes.engine import generate_variant, kinds, load_template_file, template_paths
from quizzes.engine.render import render_parts
from quizzes.presenters import skeletons
from tests.quizzes.slot_scan import (
    DRAWN_WHOLE,
    SECTION_TEMPLATES,
    SHAPED,
    Scan,
    engine,
    section_nodes,
    unkeyed,
)

QUESTIONS = Path(content.__file__).resolve().parent / "questions"


@pytest.fixture(scope="module")
def facts() -> dict[str, tuple[set[str], set[str]]]:
    """Per kind, (the facts a bank draw showed as a string, those it showed as anything else)."""
    seen: dict[str, tuple[set[str], set[str]]] = {}
    for path in template_paths(QUESTIONS):
        template = load_template_file(path, root=QUESTIONS.parent)
        for part in render_parts(template, generate_variant(template, 1)):
            strings, others = seen.setdefault(part.kind, (set(), set()))
            for name, value in part.facts.items():
                (strings if isinstance(value, str) else others).add(name)
    return seen


def _text_current(kind) -> bool:
    try:
        return isinstance(kind.input_state({}, "typed text"), str)
    except Exception:  # noqa: BLE001 - a kind that reads its facts: taken as text
        return True


def _scan_kind(kind, facts) -> Scan:
    strings, others = facts.get(kind.name, (set(), set()))
    scan = Scan(strings, others, _text_current(kind))
    scan.walk(engine().get_template(kind.input_template).nodelist, {}, kind.input_template)
    return scan


@pytest.mark.parametrize("kind", [k for k in kinds.all_kinds() if k.name not in DRAWN_WHOLE])
def test_every_kinds_input_template_writes_its_slotted_values_only_as_plain_values(kind, facts):
    scan = _scan_kind(kind, facts)
    assert scan.found == []
    assert "p.dom" in scan.used or kind.name == "choice"  # not vacuous


def test_the_section_writes_its_slotted_values_only_as_plain_values():
    scan = Scan(None, set(), text_current=True)
    scan.walk(section_nodes(), {}, SECTION_TEMPLATES[0])
    assert scan.found == []
    # Not vacuous: the scan met the section's slots where it writes them.
    assert {
        "block.number",
        "block.question.prompt_html",
        "SLOT",  # the figure, through `{% include ... with figure=... %}`
        "p.dom",
        "p.view.prompt_html",
        "p.autosave_url",
        "p.check_url",
        "p.next_sequence",
        "p.save_message",
        "p.view.idempotency_key",
    } <= scan.used, scan.used


@pytest.mark.parametrize("kind", [k for k in kinds.all_kinds() if k.name not in DRAWN_WHOLE])
def test_every_value_a_kinds_input_reads_is_slotted_or_in_the_skeletons_key(kind, facts):
    assert unkeyed(_scan_kind(kind, facts)) == set()


def test_every_value_the_section_reads_is_slotted_or_in_the_skeletons_key():
    scan = Scan(None, set(), text_current=True)
    scan.walk(section_nodes(), {}, SECTION_TEMPLATES[0])
    assert unkeyed(scan) == set()
    assert {"block.question.title", "p.state.tries_left", "attempt.quiz.is_exam"} <= scan.reads


def test_the_key_scan_finds_a_value_the_key_leaves_out():
    text = "{{ attempt.student.username }}{% for o in p.view.lists.options %}{{ o.feedback }}"
    text += "{% endfor %}{% if p.state.locked %}x{% endif %}"
    scan = Scan(None, set(), text_current=True)
    scan.walk(engine().from_string(text).nodelist, {}, "<text>")
    assert unkeyed(scan) == {
        "attempt.student.username",
        "p.view.lists.options.[].feedback",
        "p.state.locked",
    }


def test_a_kind_drawn_whole_still_needs_to_be():
    """The exemption is not stale: the roofline's input does give its slotted values to a tag."""
    for kind in kinds.all_kinds():
        if kind.name in DRAWN_WHOLE:
            assert _scan_kind(kind, {}).found, kind.name


def test_the_scan_knows_each_kinds_facts(facts):
    """Not vacuous: the facts the scans classify were seen (a unit hint is a string)."""
    assert "unit_hint" in facts["numeric"][0]
    assert "p.view.facts.unit_hint" in _scan_kind(kinds.kind_named("numeric"), facts).used
    assert "multiple" in facts["choice"][1] and "max_length" in facts["explain"][1]


UNSAFE = [
    '{% if p.view.facts.unit_hint == "Answer with a plain number (no unit)." %}x{% endif %}',
    "{% if p.current|length > 3 %}long{% endif %}",
    '{% if "ms" in p.current %}ms{% endif %}',
    "{{ p.current|upper }}",
    "{{ p.current|escapejs }}",
    "{{ p.dom|slugify }}",
    '{{ "answer-"|add:p.dom }}',
    "{% with x=p.current %}{{ x|truncatechars:5 }}{% endwith %}",
    "{% with x=p.current|lower %}{{ x }}{% endwith %}",
    "{% for c in p.current %}{{ c }}{% endfor %}",
    "{% for o in p.view.lists.options %}{{ o.token|cut:'a' }}{% endfor %}",
    "{% for o in p.view.lists.options %}{% if o.token == 'x' %}y{% endif %}{% endfor %}",
    "{{ p.view.facts }}",
    "{% load charts %}{% roofline_chart p.view.facts %}",
    '{% include "quizzes/_part_name.html" with block=p.dom %}',
]
SAFE = [
    "{{ p.dom }}{{ p.current }}{{ p.view.facts.unit_hint }}{{ block.number }}",
    "{% for o in p.view.lists.options %}{{ o.token|default:o.id }}{{ o.html }}{% endfor %}",
    "{% for o in p.view.lists.items %}{% with n=o.token|default:o.id %}{{ n }}{% endwith %}"
    "{% endfor %}",
    "{% if not disabled and p.preview_url %}{{ p.preview_url }}{% endif %}",
    "{% firstof save_message p.save_message %}",
    "{% if p.view.facts.multiple %}many{% endif %}{{ p.view.facts.max_length|default:3 }}",
    '{% include "quizzes/_part_name.html" %}',
]


@pytest.mark.parametrize("text", UNSAFE)
def test_the_scan_finds_a_slotted_value_branched_on_or_filtered(text):
    scan = Scan({"unit_hint"}, {"multiple", "max_length"}, text_current=True)
    scan.walk(engine().from_string(text).nodelist, {}, "<text>")
    assert scan.found, text


@pytest.mark.parametrize("text", SAFE)
def test_the_scan_passes_slotted_values_written_plainly(text):
    scan = Scan({"unit_hint"}, {"multiple", "max_length"}, text_current=True)
    scan.walk(engine().from_string(text).nodelist, {}, "<text>")
    assert scan.found == [], text


# One value of each field of `SHAPED` that the key must follow (the rest: the request's, a
# loop's, the fragments', read through `p.view.kind`; `block.anchor`, made of the slotted
# number and so written through its marker; a part's label, finality and length limit, which
# the stand-in (`dataclasses.replace`) works out again from its number, state and kind),
# changed on a real block.
CHANGES = {
    "block.question.title": "Another title",
    "block.variant.index": 3,
    "block.variant.is_practice": True,
    "block.variant.item.points": 7,
    "p.view.kind": "explain",
    "p.view.facts": {"unit_hint": "x", "extra": 1},
    "p.view.lists": {"options": []},
    "p.number": 9,
    "p.save_state": "unreadable",
    "p.state.tries_allowed": 2,  # `p.state.tries_left` is made of it
    "p.show_result": True,  # an exam hides results
    "p.current": "",
    "p.input_name": "other",
}


def _changed(obj, names: list[str], value):
    """A copy of `obj` with the attribute path `names` set to `value` (copies on the way)."""
    head, *rest = names
    new = copy.copy(obj)
    inner = value if not rest else _changed(getattr(obj, head), rest, value)
    try:
        setattr(new, head, inner)  # a field, a model's relation, a cached property
    except AttributeError:
        new.__dict__[head] = inner  # a frozen dataclass's field
    return new


@pytest.mark.django_db
def test_every_keyed_field_the_scan_allows_is_in_the_skeletons_key(course):
    from django.utils import timezone

    from quizzes.services import attempts as service
    from tests.factories import EnrollmentFactory, make_quiz
    from tests.quizzes.test_section_skeleton import _first_block

    quiz = make_quiz(course, examples=["decode-step-memory-floor"], mode="exam")
    user = EnrollmentFactory(course=quiz.offering, role="student").user
    attempt = service.start_attempt(quiz=quiz, student=user, now=timezone.now())
    block = _first_block(attempt)
    part = block.parts[0]
    part.__dict__["current"] = "typed"  # a text typed: slotted, and its emptiness keyed
    key = skeletons.key_of(block, attempt)
    # The lists are `p.view.lists.*` and below; the tries left are made of the tries allowed.
    assert set(CHANGES) - {"p.view.lists", "p.state.tries_allowed"} <= SHAPED
    for path, value in CHANGES.items():
        root, *names = path.split(".")
        if root == "block":
            changed = _changed(block, names, value)
        else:
            changed = copy.copy(block)
            changed.parts = [_changed(part, names, value), *block.parts[1:]]
        assert skeletons.key_of(changed, attempt) != key, path
