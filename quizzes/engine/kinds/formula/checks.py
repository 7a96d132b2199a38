"""Validation of a formula part: its answer, graded against itself, must be correct."""

from __future__ import annotations


class FormulaChecks:
    """Each formula part's answer graded against itself, once per distinct answer text.

    The grade of a formula depends only on its text and variables, so variants that share an
    answer share one grading call.  A part whose answer the grader could not check (it raised,
    or ran out of time or memory in the pool) is not graded again on later seeds: a hostile
    formula costs one time limit, not one per seed.
    """

    def __init__(self, checks, grader: str) -> None:
        self.checks = checks
        self.grader = grader
        self.graded: dict[tuple[str, str], bool] = {}
        self.unchecked: set[str] = set()

    def check(self, part, answer: str, seed: int) -> None:
        if part.id in self.unchecked or (part.id, answer) in self.graded:
            return
        variables = dict(part.settings.variables)
        grade = self.checks.grade(
            seed, part, self.grader, response=answer, expected=answer, variables=variables
        )
        self.graded[part.id, answer] = grade is not None and grade.status == "correct"
        if grade is None or grade.status == "invalid":
            self.unchecked.add(part.id)
        if grade is not None and grade.status != "correct":
            from quizzes.grading.formula.grade import check_expected

            # the grader tells a student only that the question is at fault; the author
            # gets the reason
            detail = check_expected(answer, variables) or grade.feedback
            self.checks.failures.add(
                "grading",
                f"the answer {answer!r} does not grade as correct: {detail}",
                seed,
                part.id,
            )
