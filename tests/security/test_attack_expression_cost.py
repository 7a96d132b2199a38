"""A hostile author against the cost of one draw (issue 33, S2; the review of its fixes).

The fixes bound every function's arguments and run previews and the gate in the sandbox.
Attacked here: values the language itself builds (a list of lists, whose every later reference
simpleeval walks whole) and numbers it should not make (complex).
"""

from __future__ import annotations

import pytest

from content.expressions import ExpressionError, default_namespace, evaluate


def _list_of(name: str, count: int) -> str:
    return "[" + ", ".join([name] * count) + "]"


def test_a_list_of_lists_cannot_outgrow_the_sequence_bound():
    # 140 lists of 140 values: 19,600 values, where a list may hold 1,000. Left alone, three
    # such levels hold 2.7 million values that simpleeval walks at every reference to them
    # (about 0.5 s each) and a fourth is 380 million, stored and serialised whole.
    names = default_namespace()
    names["row"] = evaluate(_list_of("1", 140))
    with pytest.raises(ExpressionError, match="more than 1,000 values"):
        evaluate(_list_of("row", 140), names)


def test_a_list_within_the_bound_still_works():
    names = default_namespace()
    names["row"] = evaluate(_list_of("1", 100))
    table = evaluate(_list_of("row", 9), names)
    assert len(table) == 9 and sum(len(r) for r in table) == 900
    assert evaluate("[[1, 2], [3, 4]][1][0]") == 3


def test_a_function_result_counts_against_the_bound_too():
    names = default_namespace()
    names["row"] = [1] * 600  # as a list parameter drawn earlier would be
    names["pair"] = lambda a, b: [a, b]  # a subject function that returns what it is given
    with pytest.raises(ExpressionError, match="more than 1,000 values"):
        evaluate("pair(row, row)", names)


@pytest.mark.parametrize(
    "expression", ["(-8) ** 0.5", "(-1) ** (1 / 3)", "-2 ** 0.5 * 0 + (-2) ** 1.5"]
)
def test_a_power_with_no_real_value_is_refused_not_made_complex(expression):
    with pytest.raises(ExpressionError, match="no real value"):
        evaluate(expression)
