"""Fixtures for the tests that live beside each answer kind (``quizzes/engine/kinds/<kind>/``).

Those tests import nothing of Django (the engine's folders must not: the layer check reads
them too); what they need of the site comes through the `kind_site` fixture here, which the
repository's root ``conftest.py`` registers for the whole suite:

- ``kind_site.homework(source)`` and ``kind_site.exam(source)``: a student's attempt at a quiz
  holding that one template, with ``page()``, ``check(part, answer)``, ``save(part, answer)``,
  ``submit()``, ``results()`` and the stored ``responses()``;
- ``kind_site.studio(source)``: the author's editor on it, ``preview(seed, tried=..., **answers)``;
- ``kind_site.instructor_page(taking)``: the instructor's view of that student's history;
- ``kind_site.classmate(taking)``: another student's attempt at the same quiz, and
  ``kind_site.staff(taking, role)``: an instructor or teaching assistant of its offering;
- ``kind_browser``: Chromium on the live server (``open(taking)``, ``axe()``, ``shot(name)``);
  ``kind_browser_without_js`` the same with JavaScript off.

It also holds the session's one headless Chromium (`browser`), which tests/browser/ uses too.
"""

from __future__ import annotations

import os
import shutil
import uuid
from dataclasses import dataclass, field

import pytest

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
IMMEDIATE_TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}


@pytest.fixture
def kind_site(db, settings):
    """The site as the kinds' tests use it (the settings tests/conftest.py gives its tests)."""
    from django.core.cache import cache

    from quizzes.presenters import page_memo

    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    settings.TASKS = IMMEDIATE_TASKS
    settings.AXES_ENABLED = False
    cache.clear()
    page_memo.clear()
    return KindSite()


def _client(user):
    from django.test import Client

    from tests.factories import PASSWORD

    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


@dataclass
class Taking:
    """One student's attempt at a one-question quiz."""

    client: object
    attempt: object
    student: object
    site: KindSite

    @property
    def variant(self):
        return self.attempt.variants.get()

    @property
    def answers(self) -> dict:
        """The variant's correct answers, as stored (server side)."""
        from quizzes.services.questions import correct_answers

        return correct_answers(self.variant)

    @property
    def _offering(self) -> str:
        return self.attempt.quiz.offering.slug

    def name(self, part: str, item: str) -> str:
        """What the student's page calls an item (an option, a thing to order or match): its
        opaque per-variant name, never its id."""
        from quizzes.services.questions import option_token

        return option_token(self.variant, part, item)

    def _url(self, name: str, part: str) -> str:
        from django.urls import reverse

        return reverse(
            f"quizzes:{name}", args=[self._offering, self.attempt.pk, self.variant.pk, part]
        )

    def page(self) -> str:
        response = self.client.get(self.attempt.get_absolute_url())
        assert response.status_code == 200
        return response.content.decode()

    def check(self, part: str, answer, *, htmx: bool = True) -> str:
        """A homework Check (`answer`: a text or a list of posted values); the fragment."""
        data = {"answer": answer, "idempotency_key": uuid.uuid4().hex}
        extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
        response = self.client.post(self._url("submit_part", part), data, **extra)
        assert response.status_code in (200, 302), response.status_code
        return response.content.decode()

    def save(self, part: str, answer, *, sequence: int = 1) -> str:
        """An exam autosave; the save status the page shows."""
        data = {"answer": answer, "sequence": sequence}
        response = self.client.post(self._url("autosave", part), data, HTTP_HX_REQUEST="true")
        return response.content.decode()

    def preview(self, part: str, answer: str):
        """The live preview of a part's answer (a response; 404 for a kind without one)."""
        return self.client.get(self._url("preview_part", part), {"answer": answer})

    def submit(self) -> None:
        from django.urls import reverse

        url = reverse("quizzes:submit_attempt", args=[self._offering, self.attempt.pk])
        response = self.client.post(url, {"confirm": "1"})
        assert response.status_code == 302, response.status_code
        self.attempt.refresh_from_db()

    def results(self) -> str:
        from django.urls import reverse

        url = reverse("quizzes:attempt_results", args=[self._offering, self.attempt.pk])
        response = self.client.get(url)
        assert response.status_code == 200
        return response.content.decode()

    def responses(self) -> list[tuple]:
        """(status, score, diagnosis, raw) of each stored response, oldest first."""
        from quizzes.models import Response

        rows = Response.objects.filter(variant__attempt=self.attempt).order_by("pk")
        return list(rows.values_list("status", "score", "diagnosis", "raw"))


@dataclass
class Studio:
    client: object
    template: object

    def preview(self, seed: int = 1, *, tried: str | None = None, **answers) -> str:
        """The editor's live preview of the template at `seed`, with answers tried
        (``part_id=value``, a list for several values) and the Try button of `tried`."""
        from django.urls import reverse

        data = {
            "source": self.template.draft_source,
            "seed": str(seed),
            "draft_revision": self.template.draft_revision,
            **{f"response_{part}": value for part, value in answers.items()},
        }
        if tried is not None:
            data["try"] = tried
        url = reverse("studio:template_preview", args=[self.template.slug])
        response = self.client.post(url, data, HTTP_HX_REQUEST="true")
        assert response.status_code == 200, response.status_code
        return response.content.decode()

    def answer(self, seed: int, part: str):
        """The correct answer of `part` in the preview at `seed` (as the variant stores it)."""
        from quizzes.services import authoring

        preview = authoring.build_preview(self.template.draft_source, seed)
        return next(p.value for p in preview.parts if p.id == part)

    def editor(self) -> str:
        from django.urls import reverse

        response = self.client.get(reverse("studio:template_edit", args=[self.template.slug]))
        assert response.status_code == 200
        return response.content.decode()


@dataclass
class KindSite:
    made: list = field(default_factory=list)

    @property
    def course(self):
        from courseware.roles import site_course
        from tests.factories import CourseFactory, default_offering

        if not self.made:
            self.made.append(CourseFactory())
            default_offering(self.made[0])
            site_course()
        return self.made[0]

    def template(self, source: str, slug: str = "kind-under-test"):
        from tests.factories import QuestionTemplateFactory

        return QuestionTemplateFactory(
            course=self.course, slug=slug, title="Under test", draft_source=source
        )

    def _taking(self, source: str, mode: str, **quiz_fields) -> Taking:
        from django.utils import timezone

        from quizzes.services import attempts
        from tests.factories import EnrollmentFactory, QuizFactory, QuizItemFactory

        quiz = QuizFactory(course=self.course, mode=mode, **quiz_fields)
        QuizItemFactory(quiz=quiz, template=self.template(source), position=1)
        student = EnrollmentFactory(course=self.course, role="student").user
        attempt = attempts.start_attempt(quiz=quiz, student=student, now=timezone.now())
        return Taking(_client(student), attempt, student, self)

    def homework(self, source: str, **quiz_fields) -> Taking:
        return self._taking(source, "homework", **quiz_fields)

    def exam(self, source: str, **quiz_fields) -> Taking:
        return self._taking(source, "exam", **quiz_fields)

    def classmate(self, taking: Taking) -> Taking:
        """Another student's attempt at the same quiz as `taking`."""
        from django.utils import timezone

        from quizzes.services import attempts
        from tests.factories import EnrollmentFactory

        quiz = taking.attempt.quiz
        student = EnrollmentFactory(offering=quiz.offering, role="student").user
        attempt = attempts.start_attempt(quiz=quiz, student=student, now=timezone.now())
        return Taking(_client(student), attempt, student, self)

    def staff(self, taking: Taking, role: str = "instructor"):
        """A new instructor (or "ta") of the offering of `taking`'s quiz."""
        from tests.factories import EnrollmentFactory

        return EnrollmentFactory(offering=taking.attempt.quiz.offering, role=role).user

    def studio(self, source: str, slug: str = "kind-in-studio") -> Studio:
        from tests.factories import UserFactory, site_role

        author = UserFactory()
        site_role(author, "author")  # the bank's authors are the site's, not an offering's
        return Studio(_client(author), self.template(source, slug))

    def instructor_page(self, taking: Taking) -> str:
        from django.urls import reverse

        from tests.factories import EnrollmentFactory

        instructor = EnrollmentFactory(course=self.course, role="instructor").user
        url = reverse("instructor:student_detail", args=[taking._offering, taking.student.pk])
        response = _client(instructor).get(url)
        assert response.status_code == 200
        return response.content.decode()


# -- the browser -------------------------------------------------------------------------------


def _chromium() -> str | None:
    for path in CHROMIUM_CANDIDATES:
        if os.path.exists(path):
            return path
    return shutil.which("chromium")


@pytest.fixture(scope="session")
def browser():
    executable = _chromium()
    if executable is None:
        pytest.skip("no Chromium found (apt-get install chromium); browser tests need it")
    # Playwright's sync API runs an event loop in this thread; the live server's database
    # work happens in its own thread, but fixtures touching the ORM here need this.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=executable,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield chromium
        chromium.close()


@dataclass
class KindBrowser:
    """A kind's part in Chromium, at a width, answered by keyboard."""

    page: object

    def log_in(self, user) -> None:
        from tests.factories import PASSWORD

        self.page.goto("/accounts/login/")
        self.page.get_by_label("Username").fill(user.username)
        self.page.get_by_label("Password").fill(PASSWORD)
        self.page.get_by_role("button", name="Log in").click()
        self.page.wait_for_load_state("networkidle")

    def open(self, taking) -> None:
        """Log in as the taking's student and open the attempt."""
        self.log_in(taking.student)
        self.page.goto(taking.attempt.get_absolute_url())
        self.page.wait_for_load_state("networkidle")

    def width(self, pixels: int) -> None:
        self.page.set_viewport_size({"width": pixels, "height": 900})

    def axe(self) -> list[str]:
        """The serious and critical axe-core findings on the page as it is now."""
        from axe_playwright_python.sync_playwright import Axe

        results = Axe().run(self.page).response
        found = [
            f"{v['id']} ({v['impact']}): {v['help']} at "
            + ", ".join(" ".join(map(str, n["target"])) for n in v["nodes"][:3])
            for v in results["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        wide, room = self.page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        if wide > room:
            found.append(f"the page is {wide} px wide in {room} px")
        return found

    def tab_to(self, selector: str, *, most: int = 80) -> None:
        """Press Tab until the element matching `selector` has the focus (keyboard only)."""
        for _ in range(most):
            self.page.keyboard.press("Tab")
            if self.page.evaluate(
                "s => document.activeElement && document.activeElement.matches(s)", selector
            ):
                return
        raise AssertionError(f"Tab never reached {selector}")

    def shot(self, name: str) -> None:
        """A full-page screenshot under $KIND_SHOTS (for a person to look at), if set."""
        folder = os.environ.get("KIND_SHOTS")
        if folder:
            os.makedirs(folder, exist_ok=True)
            self.page.screenshot(path=os.path.join(folder, f"{name}.png"), full_page=True)


@pytest.fixture
def kind_browser(browser, live_server):
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    yield KindBrowser(context.new_page())
    context.close()


@pytest.fixture
def kind_browser_without_js(browser, live_server):
    """The same, with JavaScript off: a kind's input must work as a plain form where the site's
    do (a homework Check and an exam's Save answer post the form and the page comes back)."""
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": 390, "height": 900}, java_script_enabled=False
    )
    context.set_default_timeout(15_000)
    yield KindBrowser(context.new_page())
    context.close()
