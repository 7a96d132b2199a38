"""Markup marked safe is made in one place: a scan of the code for every other way to do it.

`mark_safe` is allowed only in the sanitizer and in the chapter assembly that adds the site's
own HTML to already sanitized text; `|safe` only on Django's own password help text.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CODE = ("courseware", "quizzes", "config", "content")

MARK_SAFE_ALLOWED = {
    "courseware/rendering/sanitize.py",  # the sanitizer itself
    "courseware/rendering/chapter.py",  # sanitized body + the site's escaped sources list
    # A memoised question section: our own templates' escaped output, with only the request's
    # CSRF token and server-made form keys put back in (tests/security/test_attack_section_cache).
    "quizzes/presenters/fragments.py",
    # A question's text from its template's sanitized skeleton with the variant's values put
    # into the slots; each value is letters, digits and `, . / ( ) % + -` and space, checked
    # before it goes in (tests/quizzes/test_slotted.py: hostile values, and the whole bank
    # drawing the same HTML with and without the slots).
    "quizzes/presenters/slotted.py",
    # A fresh question section from its template version's skeleton (our own templates'
    # output, checked against its own section once) with each slot's value written as the
    # template writes a value (`render_value_in_context`: escaped unless our renderers made it
    # safe), after the skeleton was split at its markers (tests/quizzes/
    # test_section_skeleton.py: hostile saved text, and the whole bank drawn both ways).
    "quizzes/presenters/skeletons.py",
    # The item index's rows: every text (link, filter, slug, title, chapter) escaped with
    # `html.escape`, the figures checked to be digits and signs, else escaped too
    # (tests/quizzes/test_index_rows_html.py: hostile titles drawn as format_html_join draws them).
    "quizzes/presenters/instructor.py",
}
SAFE_FILTER_ALLOWED = {
    # Django's password validators' help text: server-made, never user text.
    "templates/registration/password_change_form.html",
}


def _files(patterns: tuple[str, ...], suffix: str):
    for top in patterns:
        for path in (ROOT / top).rglob(f"*{suffix}"):
            if "migrations" not in path.parts:
                yield path


def test_mark_safe_only_in_the_sanitizer_and_the_chapter_assembly():
    users = {
        str(p.relative_to(ROOT))
        for p in _files(CODE, ".py")
        if re.search(r"\bmark_safe\(|\bSafeString\(|\bSafeText\(", p.read_text())
    }
    assert users <= MARK_SAFE_ALLOWED, users - MARK_SAFE_ALLOWED


def test_no_template_turns_escaping_off():
    found = set()
    for path in _files(("templates", "courseware", "quizzes"), ".html"):
        text = path.read_text()
        rel = str(path.relative_to(ROOT))
        if "autoescape off" in text:
            found.add(rel)
        if re.search(r"\|\s*safe\b", text) and rel not in SAFE_FILTER_ALLOWED:
            found.add(rel)
    assert found == set()


def test_views_use_the_courseware_renderers():
    # The old private Markdown parser of the quiz app is gone: one renderer family, one sanitizer.
    for path in _files(("quizzes",), ".py"):
        text = path.read_text()
        assert "MarkdownIt(" not in text, path
        assert "latex2mathml" not in text, path


# Forms that post to another site: the LTI deep-linking response goes to the LMS's return URL
# with the platform's signed JWT. Our CSRF token must never travel to another origin.
OFFSITE_FORMS = {"templates/lti/deep_link_return.html"}


def test_every_post_form_in_the_templates_carries_a_csrf_token():
    missing, leaked = [], []
    for path in _files(("templates", "courseware", "quizzes", "lti"), ".html"):
        text = path.read_text()
        name = str(path.relative_to(ROOT))
        for match in re.finditer(r"<form\b[^>]*>", text, flags=re.IGNORECASE):
            if 'method="post"' not in match.group(0).lower():
                continue
            end = text.find("</form>", match.end())
            has_token = "{% csrf_token %}" in text[match.end() : end]
            if name in OFFSITE_FORMS:
                if has_token:
                    leaked.append(name)
            elif not has_token:
                missing.append(f"{name}: {match.group(0)[:60]}")
    assert missing == []
    assert leaked == []
