"""The bank's figure questions in Chromium: on a 390 px phone each figure fits the screen with
its axis labels in view and readable, the page does not scroll sideways, and axe-core finds
nothing serious, on the attempt page and in the studio's preview (`KIND_SHOTS=folder` keeps a
screenshot of each for a person to look at)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.urls import reverse

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BANK = Path(__file__).resolve().parents[2] / "content" / "questions"
FIGURED = {
    "kv-cache-max-batch": "inference",
    "paged-kv-reservation": "inference",
    "staircase-read-transfer": "interconnect",
    "roofline-read-two-kernels": "roofline",
}


def _source(slug: str) -> str:
    return (BANK / FIGURED[slug] / f"{slug}.yaml").read_text(encoding="utf-8")


def _shot(page, name: str) -> None:
    """The figure alone, at the size a person sees it, under $KIND_SHOTS if set."""
    folder = os.environ.get("KIND_SHOTS")
    if folder:
        # in view and two frames on, so the picture is taken as laid out (an element shot of a
        # part of a tall page can mix two scroll positions)
        frame = page.locator(".question-figure-frame").first
        frame.scroll_into_view_if_needed()
        page.evaluate(
            "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        page.screenshot(path=f"{folder}/{name}.png", clip=frame.bounding_box())


def _fits(page, width: int) -> None:
    figure = page.locator(".question-figure-frame svg").first
    box = figure.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
    ticks = figure.locator("text.tick")
    assert ticks.count() >= 3
    for i in range(ticks.count()):
        tick = ticks.nth(i).bounding_box()
        assert tick["x"] >= 0 and tick["x"] + tick["width"] <= width, tick
        assert tick["height"] >= 7, tick  # drawn at least 7 px tall: readable
    # every label and value of the picture is on screen, none cut at the right edge
    texts = figure.locator("text")
    for i in range(texts.count()):
        text = texts.nth(i).bounding_box()
        if text is not None and text["width"]:
            assert text["x"] >= -1 and text["x"] + text["width"] <= width + 1, (i, text)


@pytest.mark.parametrize("slug", list(FIGURED))
def test_on_a_phone_the_attempt_pages_figure_fits_and_axe_finds_nothing(
    kind_site, kind_browser, slug
):
    taking = kind_site.homework(_source(slug))
    kind_browser.width(390)
    kind_browser.open(taking)
    _fits(kind_browser.page, 390)
    kind_browser.shot(f"attempt-{slug}-390")
    _shot(kind_browser.page, f"figure-{slug}-390")
    assert kind_browser.axe() == []
    kind_browser.width(1280)
    kind_browser.shot(f"attempt-{slug}-1280")
    _shot(kind_browser.page, f"figure-{slug}-1280")
    assert kind_browser.axe() == []


@pytest.mark.parametrize("slug", ["paged-kv-reservation", "roofline-read-two-kernels"])
def test_the_studio_preview_draws_the_figure_that_fits_a_phone(kind_site, kind_browser, slug):
    from tests.factories import UserFactory, site_role

    author = UserFactory()
    site_role(author, "author")
    template = kind_site.template(_source(slug), slug=slug)
    kind_browser.log_in(author)
    page = kind_browser.page
    page.goto(reverse("studio:template_edit", args=[template.slug]) + "?seed=3")
    page.wait_for_load_state("networkidle")
    kind_browser.width(390)
    _fits(page, 390)
    kind_browser.shot(f"studio-{slug}-390")
    _shot(page, f"studio-figure-{slug}-390")
    assert kind_browser.axe() == []
    kind_browser.width(1280)
    kind_browser.shot(f"studio-{slug}-1280")
    _shot(page, f"studio-figure-{slug}-1280")
