"""Learning objectives in quiz files: read with their lines, and the bank's own files keep them.

The reader refuses an objective naming fewer than two templates, and the bank refuses one naming
a template that does not exist; the tests on the real files check that every chapter quiz can
draw every one of its objectives, and that the review and the checkpoint exam can too.
"""

from __future__ import annotations

import pytest

from quizzes.engine import TemplateError
from quizzes.services.bank import BankError, read_bank, read_quiz_text

from .test_bank import QUIZ, write_bank

OBJECTIVES = """\
objectives:
  - id: decode-floor
    text: Compute the time to stream the weights once.
    templates: [floor-a, floor-b]
  - id: floor-pool
    text: Compare two floors.
    templates: [floor-b, floor-c]
"""


def test_objectives_are_read_with_their_templates():
    quiz = read_quiz_text(QUIZ + OBJECTIVES, source="q.yaml")
    assert [o.id for o in quiz.objectives] == ["decode-floor", "floor-pool"]
    assert quiz.objectives[0].templates == ("floor-a", "floor-b")
    assert quiz.objectives[0].text == "Compute the time to stream the weights once."


def test_a_quiz_without_objectives_reads_as_before():
    assert read_quiz_text(QUIZ, source="q.yaml").objectives == []


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ("templates: [floor-a, floor-b]", "names 1 template(s); name at least two"),
        ("id: decode-floor", "id: is required: lowercase letters, digits, hyphens"),
        ("text: Compare two floors.", "txt: unknown field in an objective"),
    ],
)
def test_a_malformed_objective_is_refused_with_its_line(change, expected):
    bad = {
        "templates: [floor-a, floor-b]": "templates: [floor-a]",
        "id: decode-floor": "id: Decode Floor",
        "text: Compare two floors.": "txt: Compare two floors.",
    }[change]
    with pytest.raises(TemplateError) as excinfo:
        read_quiz_text(QUIZ + OBJECTIVES.replace(change, bad), source="q.yaml")
    problems = str(excinfo.value).splitlines()
    assert any(expected in p and "q.yaml, line" in p for p in problems), problems


@pytest.mark.django_db
def test_an_objective_naming_an_unknown_template_is_refused_with_a_suggestion(tmp_path):
    root = write_bank(
        tmp_path, quiz=QUIZ + OBJECTIVES.replace("[floor-b, floor-c]", "[floor-b, flor-c]")
    )
    with pytest.raises(BankError) as excinfo:
        read_bank(root)
    assert any(
        "objective 'floor-pool': unknown template 'flor-c'; did you mean 'floor-c'?" in p
        for p in excinfo.value.problems
    ), excinfo.value.problems


# -- the bank's own quiz files -------------------------------------------------------------------

CHAPTERS = ("intro", "gpus", "roofline", "inference", "precision", "interconnect")
# The review and the checkpoint exam draw across these chapters' objectives.
MIXED_QUIZZES = ("part-1-review", "part-1-checkpoint-exam")
# Every chapter's objectives are held to every rule below, the review and the exam included.
REVIEWED = CHAPTERS


@pytest.fixture(scope="module")
def bank():
    return read_bank()


def _chapter_quizzes(bank):
    return {q.chapter: q for q in bank.quizzes if q.chapter in CHAPTERS}


def _drawable(quiz) -> set[str]:
    # A fixed item is always drawn; each member of a pool can be.
    return {item.template for item in quiz.items}


def test_every_objective_names_at_least_two_templates_of_the_bank(bank):
    slugs = {t.slug for t in bank.templates}
    for quiz in bank.quizzes:
        for objective in quiz.objectives:
            assert len(set(objective.templates)) >= 2, (quiz.path, objective.id)
            assert set(objective.templates) <= slugs, (quiz.path, objective.id)


def test_every_chapter_has_a_quiz_that_declares_its_objectives(bank):
    quizzes = _chapter_quizzes(bank)
    assert set(quizzes) == set(CHAPTERS)
    missing = sorted(chapter for chapter, quiz in quizzes.items() if not quiz.objectives)
    assert not missing, f"chapter quizzes without objectives: {missing}"


def test_each_chapter_quiz_can_draw_every_objective_and_each_item_tests_one(bank):
    for quiz in _chapter_quizzes(bank).values():
        drawable = _drawable(quiz)
        for objective in quiz.objectives:
            assert drawable & set(objective.templates), (
                f"{quiz.path}: no item or pool can draw objective '{objective.id}'"
            )
        tested = {slug for o in quiz.objectives for slug in o.templates}
        untested = sorted(drawable - tested)
        assert not untested, f"{quiz.path}: items in no objective: {untested}"


@pytest.mark.parametrize("slug", MIXED_QUIZZES)
def test_the_review_and_the_exam_can_draw_every_chapter_objective(bank, slug):
    (quiz,) = [q for q in bank.quizzes if q.slug == slug]
    drawable = _drawable(quiz)
    for chapter, chapter_quiz in _chapter_quizzes(bank).items():
        for objective in chapter_quiz.objectives:
            if chapter not in REVIEWED:
                continue
            assert drawable & set(objective.templates), (
                f"{quiz.path}: cannot draw {chapter} objective '{objective.id}'"
            )


def _always_drawn(quiz, objective) -> bool:
    """Whether every attempt draws at least one template of ``objective``: a fixed item, or a
    pool that draws more members than it has outside the objective."""
    wanted = set(objective.templates)
    pools: dict[str, set[str]] = {}
    for item in quiz.items:
        if not item.pool:
            if item.template in wanted:
                return True
        else:
            pools.setdefault(item.pool, set()).add(item.template)
    return any(quiz.pools[name] > len(members - wanted) for name, members in pools.items())


def test_every_attempt_of_a_chapter_quiz_draws_every_objective(bank):
    for chapter, quiz in _chapter_quizzes(bank).items():
        if chapter not in REVIEWED:
            continue
        missed = [o.id for o in quiz.objectives if not _always_drawn(quiz, o)]
        assert not missed, f"{quiz.path}: an attempt can miss objectives {missed}"


def test_each_chapter_has_enough_templates_and_a_third_ask_for_reasoning():
    from quizzes.engine import load_template_files
    from quizzes.services.bank import questions_dir

    templates = [t for t in load_template_files(questions_dir()) if "examples" not in t.source]
    for chapter in REVIEWED:
        mine = [t for t in templates if t.chapter == chapter]
        # Reasoning: a decision or an estimate the student makes (tests/quizzes/
        # test_bank_reasoning.py checks the tag against the parts).
        judged = [t for t in mine if "reasoning" in t.tags]
        assert len(mine) >= 15, f"{chapter}: {len(mine)} templates"
        assert 3 * len(judged) >= len(mine), f"{chapter}: {len(judged)} of {len(mine)} judge"
    assert len(templates) >= 110, f"{len(templates)} chapter templates in the bank"


def test_an_objective_is_always_drawn_only_through_a_fixed_item_or_a_pool_it_fills():
    quiz = read_quiz_text(QUIZ, source="q.yaml")

    def objective(*slugs):
        return type("O", (), {"templates": slugs})()

    assert _always_drawn(quiz, objective("floor-a", "floor-z"))  # a fixed item
    assert _always_drawn(quiz, objective("floor-b", "floor-c"))  # the whole pool
    assert not _always_drawn(quiz, objective("floor-b", "floor-z"))  # one of a pool of two
