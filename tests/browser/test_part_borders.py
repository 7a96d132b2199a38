"""The finished-part border in the real stylesheet: green only for a correct verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
CSS = Path(__file__).resolve().parents[2] / "static" / "css"


def _part(status: str) -> str:
    return (
        f'<div class="part final" id="{status}"><div class="part-result">'
        f'<div class="feedback {status}" role="status"><p class="verdict">x</p></div>'
        "</div></div>"
    )


def test_a_part_finished_on_wrong_answers_is_not_drawn_as_a_success(browser):
    styles = "".join((CSS / name).read_text() for name in ("site.css", "quiz.css"))
    context = browser.new_context()
    page = context.new_page()
    page.set_content(f"<style>{styles}</style>{_part('correct')}{_part('incorrect')}")
    border = page.evaluate(
        """() => Object.fromEntries(['correct', 'incorrect'].map(id => [id,
             getComputedStyle(document.getElementById(id)).borderLeftColor]))"""
    )
    good = page.evaluate(
        "getComputedStyle(document.documentElement).getPropertyValue('--good').trim()"
    )
    context.close()
    assert border["correct"] == "rgb(26, 127, 69)" and good == "#1a7f45"
    assert border["incorrect"] != border["correct"]
