"""Live expressions in text: substitution, options, math awareness, lines and citations."""

from __future__ import annotations

import pytest

from content.expressions import ExpressionError, check_live, render_live


def test_plain_number_uses_three_significant_figures(names):
    assert render_live("x = {{ 2 / 3 }}.", names).text == "x = 0.667."


def test_unit_option_goes_through_format_quantity(names):
    result = render_live('{{ accelerator("H100").memory_bandwidth | B/s }}', names)
    assert result.text == "3.35e+12 B/s"


def test_options_sig_approx_and_fixed_unit(names):
    text = '{{ accelerator("H100").peak("bf16") | FLOP/s | approx | sig=2 }} {{ 2e9 | in GB/s }}'
    assert render_live(text, names).text == "~9.9e+14 FLOP/s 2e+09 GB/s (fixed)"


def test_percent_ratio_int_and_text(names):
    text = "{{ 0.25 | % }} {{ 8 | x }} {{ 1234.6 | int }} {{ acc | text }} {{ acc }}"
    assert render_live(text, names).text == "25% 8× 1,235 H100 H100"


def test_catalog_object_renders_its_name(names):
    assert render_live('{{ accelerator("a100") }}', names).text == "A100 SXM"


def test_unit_inside_math_is_wrapped_in_text(names):
    text = "Time $t = {{ 3e12 | B/s | approx }}$ and {{ 3e12 | B/s }}"
    rendered = render_live(text, names).text
    assert rendered == "Time $t = \\sim 3e+12\\,\\text{B/s}$ and 3e+12 B/s"


def test_display_math_and_percent_escape(names):
    rendered = render_live("$$\nr = {{ 0.5 | % }}\n$$ then {{ 0.5 | % }}", names).text
    assert rendered == "$$\nr = 50\\%\n$$ then 50%"


def test_dollar_followed_by_space_does_not_open_math(names):
    rendered = render_live("costs $ 3 and {{ 0.5 | % }}", names).text
    assert rendered.endswith("50%")


def test_escaped_braces_stay_literal(names):
    assert render_live("write \\{{ expr }} to show", names).text == "write {{ expr }} to show"


def test_error_reports_line_within_text(names):
    text = "first\nsecond {{ 1 }}\n\nfourth {{ ridge_pont(acc, 'bf16') }}"
    with pytest.raises(ExpressionError) as info:
        render_live(text, names, source="roofline.md")
    assert info.value.line == 4
    assert str(info.value).startswith("roofline.md, line 4: {{ ridge_pont(acc, 'bf16') }}:")
    assert "did you mean 'ridge_point'" in str(info.value)


def test_first_line_offsets_reported_lines(names):
    with pytest.raises(ExpressionError) as info:
        render_live("a\n{{ nope }}", names, first_line=10)
    assert info.value.line == 11


def test_unclosed_expression_is_an_error(names):
    with pytest.raises(ExpressionError, match="without a closing"):
        render_live("a {{ 1 + 2", names)


def test_citations_of_returned_and_argument_catalog_entries(names):
    text = '{{ accelerator("a100").memory_bandwidth | B/s }} {{ ridge_point("H100", "bf16") }}'
    assert render_live(text, names).citations == ("nvidia-a100", "nvidia-h100")


def test_check_live_returns_every_error(names):
    text = "{{ foo }}\n{{ 1 | furlongs }}\n{{ 1 / 0 }}\n{{ 2 }}"
    errors = check_live(text, names, "q.yaml")
    assert [e.line for e in errors] == [1, 2, 3]
    assert "did you mean" in errors[0].message
    assert "furlongs" in errors[1].message


def test_check_live_with_names_only_checks_statically():
    errors = check_live("{{ ridge_point(acc, dt) }} {{ accc }}", {"ridge_point", "acc", "dt"})
    assert len(errors) == 1 and "did you mean 'acc'" in errors[0].message


def test_conflicting_options_are_refused(names):
    with pytest.raises(ExpressionError, match="conflicts"):
        render_live("{{ 1 | % | x }}", names)


def test_a_text_is_scanned_once_and_a_broken_or_long_one_every_time():
    from content.expressions import live, scan_live

    text = "a {{ 1 + 1 }} b $x = {{ 2 }}$ c"
    first = list(scan_live(text, source="t.yaml", first_line=4))
    hits = live._scanned.cache_info().hits
    again = list(scan_live(text, source="t.yaml", first_line=4))
    assert again == first and live._scanned.cache_info().hits == hits + 1
    assert [(s.expr, s.in_math, s.line) for s in first] == [("1 + 1", False, 4), ("2", True, 4)]
    # A text that does not scan still yields its spans up to the error, every time.
    broken = "ok {{ 3 }} then {{ 4"
    for _ in range(2):
        seen = []
        with pytest.raises(ExpressionError, match="without a closing"):
            for span in scan_live(broken):
                seen.append(span.expr)
        assert seen == ["3"]
    long_text = "{{ 5 }}" + "x" * live._CACHED_TEXT_CHARS
    misses = live._scanned.cache_info().misses
    assert [s.expr for s in scan_live(long_text)] == ["5"]
    many = " ".join("{{ " + str(i) + " }}" for i in range(live._CACHED_TEXT_SPANS + 1))
    assert len(list(scan_live(many))) == live._CACHED_TEXT_SPANS + 1
    assert live._scanned.cache_info().misses == misses


def test_one_evaluator_serves_every_expression_of_a_text(names, monkeypatch):
    from content.expressions import evaluator as module

    built = []
    original = module.SafeEvaluator.__init__

    def counting(self, *args, **kwargs):
        built.append(1)
        original(self, *args, **kwargs)

    monkeypatch.setattr(module.SafeEvaluator, "__init__", counting)
    text = '{{ accelerator("H100").name | text }}, {{ 2 * 3 }} and {{ accelerator("A100") }}'
    result = render_live(text, names)
    assert result.text == "H100 SXM, 6 and A100 SXM"
    assert len(built) == 1
    # Each expression's catalog entries are still its own: both parts' sources are cited.
    cited = {str(c) for c in result.citations}
    h100 = {str(c) for c in render_live('{{ accelerator("H100") }}', names).citations}
    a100 = {str(c) for c in render_live('{{ accelerator("A100") }}', names).citations}
    assert h100 and a100 and cited == h100 | a100


def test_a_shared_evaluator_hands_each_expression_only_what_it_touched(names):
    from content.expressions.evaluator import SafeEvaluator, evaluate_tracked

    shared = SafeEvaluator(names)
    _, first = evaluate_tracked('accelerator("H100")', names, evaluator=shared)
    _, second = evaluate_tracked('accelerator("A100")', names, evaluator=shared)
    _, third = evaluate_tracked("2 * 3", names, evaluator=shared)
    assert first and all("H100" in str(o) for o in first)
    assert all("A100" in str(o) for o in second) and second
    assert not any("H100" in str(o) for o in second)
    assert third == [] and first and second  # earlier lists are left as they were
