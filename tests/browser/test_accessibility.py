"""axe-core (Deque's accessibility engine, injected by axe-playwright-python) over every page
kind, for every role, at desktop width and at a phone's 390 px: no violation of impact serious
or critical. At phone width every page also fits the screen: a wide
table scrolls inside its own box, the page itself never sideways.

One walk through the real book and bank per test keeps the browser cost down; every page is a
new axe run. No rule is disabled: a violation is fixed in the page, never in this test.
"""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.core.management import call_command

from courseware.management.commands.setup_demo import DEMO_PASSWORD, create_demo, enroll_demo
from quizzes.models import Attempt, Response
from tests.browser.conftest import log_in
from tests.factories import OFFERING

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Axe()
BLOCKING = {"serious", "critical"}


@pytest.fixture
def site():
    from quizzes.management.commands.setup_site import ensure_second_offering

    create_demo()
    call_command("sync_content", verbosity=0)
    call_command("sync_questions", verbosity=0)
    ensure_second_offering()  # student1 is in both sections: the header's switcher shows
    enroll_demo()


def _audit(page, path: str, found: dict[str, list[str]]) -> None:
    """Open `path` (unless it is the page already open) and record its serious findings."""
    if path != _here(page):
        page.goto(path)
    page.wait_for_load_state("networkidle")
    results = AXE.run(page).response
    where = path
    width = page.viewport_size["width"]
    if width < 600:
        wide, room = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        if wide > room:
            found.setdefault(where, []).append(f"the page is {wide} px wide in {room} px")
    for violation in results["violations"]:
        if violation["impact"] in BLOCKING:
            targets = [" ".join(map(str, node["target"])) for node in violation["nodes"][:3]]
            found.setdefault(where, []).append(
                f"{violation['id']} ({violation['impact']}): {violation['help']} at {targets}"
            )


def _here(page) -> str:
    return re.sub(r"^https?://[^/]+", "", page.url)


@pytest.mark.parametrize("width", [1280, 390])
def test_every_page_kind_for_every_role_has_no_serious_violation(page, site, width):
    page.set_viewport_size({"width": width, "height": 900})
    found: dict[str, list[str]] = {}
    audit = lambda path: _audit(page, path, found)  # noqa: E731

    # Anonymous visitor.
    # Every chapter that draws its own SVG figures (rooflines, the H100's anatomy).
    chapters = (
        "/chapters/intro/",
        "/chapters/gpus/",
        "/chapters/roofline/",
        "/chapters/precision/",
    )
    for path in ("/", *chapters, "/calculator/", "/roofline/", "/accounts/login/"):
        audit(path)
    audit("/accounts/password_reset/")  # reset by e-mail, or who gives a set-password link
    audit("/no-such-page/")  # the 404 page
    audit("/lti/login/?iss=https://unknown.example&login_hint=x")  # an LMS launch refused

    # Student: homework with a checked answer, an exam, results, progress, a 403.
    log_in(page, "student1", DEMO_PASSWORD)
    for path in ("/", "/chapters/inference/", "/o/hardware-reality/quizzes/"):
        audit(path)
    page.locator(".offering-switcher summary").click()  # the switcher, open
    audit(_here(page))
    page.goto("/o/hardware-reality/quizzes/roofline-quiz/")
    audit(_here(page))
    page.get_by_role("button", name="Start attempt").click()
    page.wait_for_url("**/attempts/*/")
    first = page.locator("input.answer-input").first
    first.fill("12 GB")
    first.press("Enter")
    page.locator(".feedback").first.wait_for()
    homework = _here(page)
    audit(homework)
    page.goto("/o/hardware-reality/quizzes/part-1-checkpoint-exam/")
    page.get_by_role("button", name="Start attempt").click()
    page.wait_for_url("**/attempts/*/")
    page.locator("input.answer-input").first.type("banana", delay=10)
    page.locator(".save-status").first.wait_for()
    audit(_here(page))
    # The server's own confirmation (what a page without JavaScript gets): no dialog asked.
    page.evaluate("document.querySelector('form[data-confirm]').removeAttribute('data-confirm')")
    page.get_by_role("button", name="Submit attempt").click()
    page.get_by_role("heading", name="Submit this exam now?").wait_for()
    audit(_here(page))
    page.get_by_role("button", name="Submit now").click()
    page.wait_for_url("**/results/")
    audit(_here(page))
    audit("/o/hardware-reality/progress/")
    audit("/o/hardware-reality/instructor/")  # the 403 page

    # Instructor: every page, with the student's work in them.
    page.context.clear_cookies()
    log_in(page, "instructor", DEMO_PASSWORD)
    student = Attempt.objects.filter(student__username="student1").first().student
    answered = Response.objects.filter(variant__attempt__student=student).first()
    slug = answered.variant.version.template.slug
    for path in (
        "/o/hardware-reality/instructor/",
        "/o/hardware-reality/instructor/gradebook/",
        "/o/hardware-reality/instructor/gradebook/?show=missing",
        f"/o/{OFFERING}/instructor/students/{student.pk}/",
        "/o/hardware-reality/instructor/items/",
        f"/o/{OFFERING}/instructor/items/{slug}/",
        "/o/hardware-reality/instructor/misconceptions/",
        "/o/hardware-reality/instructor/variants/",
        "/o/hardware-reality/instructor/quizzes/",
        "/o/hardware-reality/instructor/quizzes/roofline-quiz/",
        "/o/hardware-reality/lms/grades/",
        "/o/hardware-reality/instructor/roster/",
        "/o/hardware-reality/instructor/extensions/",
        "/o/hardware-reality/instructor/quizzes/new/",
        "/o/hardware-reality/instructor/quizzes/roofline-quiz/settings/",
        "/o/hardware-reality/instructor/misconceptions/?quiz=roofline-quiz&since=2020-01-01",
        "/o/hardware-reality/instructor/?since=2020-01-01",
        f"/o/{OFFERING}/instructor/items/{slug}/?since=2020-01-01",
        "/o/hardware-reality/instructor/quizzes/roofline-quiz/pools/",
        "/o/hardware-reality/instructor/quizzes/roofline-quiz/preview/",
        "/accounts/time-zone/",
        "/o/hardware-reality/instructor/regrade/",  # last: the regrade preview starts here
    ):
        audit(path)
    page.get_by_label("Template").select_option(str(answered.variant.version.template_id))
    page.get_by_role("button", name=re.compile("Preview the changes|Show its versions")).click()
    page.wait_for_load_state("networkidle")
    if page.get_by_role("button", name="Preview the changes").count():
        page.get_by_role("button", name="Preview the changes").click()
    page.wait_for_url(re.compile(r"/o/hardware-reality/instructor/regrade/\d+/$"))
    audit(_here(page))
    # Exports: one prepared (the tests' tasks run at once), with its download link.
    page.goto("/o/hardware-reality/instructor/exports/")
    page.get_by_role("button", name="Prepare all responses (CSV)").click()
    page.get_by_role("link", name="Download").wait_for()
    audit(_here(page))

    # Author: the studio list, the editor with its preview, validation, quiz items.
    page.context.clear_cookies()
    log_in(page, "author", DEMO_PASSWORD)
    for path in (
        "/studio/",
        f"/studio/templates/{slug}/",
        f"/studio/templates/{slug}/edit/",
        f"/studio/templates/{slug}/diff/",
        f"/studio/templates/{slug}/validate/",
    ):
        audit(path)
    # The validation report, as its POST draws it: failures, ratios and outcomes tables.
    page.locator("#id_seeds").fill("50")
    page.get_by_role("button", name="Validate the draft").click()
    page.locator("#report-region .report").wait_for()
    audit(_here(page))
    for path in ("/studio/new/", "/studio/import/"):
        audit(path)

    # Site administrator: the offerings, one offering, a copy refused with its messages.
    page.context.clear_cookies()
    log_in(page, "siteadmin", DEMO_PASSWORD)
    for path in (
        "/site/offerings/",
        "/site/offerings/new/",
        "/site/offerings/hardware-reality/",
        "/site/offerings/hardware-reality/copy/",
    ):
        audit(path)
    page.get_by_label("Short name").fill("has spaces")
    page.get_by_role("button", name="Create the copy").click()
    page.locator(".field-error").first.wait_for()
    audit(_here(page))

    report = "\n".join(f"{where}:\n  " + "\n  ".join(lines) for where, lines in found.items())
    assert not found, f"at {width} px, serious or critical violations, or overflow:\n" + report
