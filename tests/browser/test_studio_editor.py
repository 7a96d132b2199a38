"""The studio's code editor (CodeMirror, vendored) in Chromium: it replaces the textarea, keeps
it as the form's field, marks each error at its line, completes names from the server's own
reference, breaks no CSP rule, passes axe at both widths, and without JavaScript the textarea
is still the editor."""

from __future__ import annotations

import pytest

from tests.quizzes.test_studio_views import make_template

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _open(kind_browser, course, author):
    template = make_template(course)
    kind_browser.log_in(author)
    kind_browser.page.goto(f"/studio/templates/{template.slug}/edit/")
    kind_browser.page.wait_for_load_state("networkidle")
    return template


@pytest.mark.parametrize("width", [1280, 390])
def test_the_editor_replaces_the_textarea_and_marks_errors_at_their_lines(
    kind_browser, course, author, width
):
    page = kind_browser.page
    violations = []
    page.on(
        "console", lambda m: violations.append(m.text) if "Content Security" in m.text else None
    )
    kind_browser.width(width)
    _open(kind_browser, course, author)
    editor = page.locator(".cm-editor")
    editor.wait_for()
    assert page.locator("textarea#source").is_hidden()
    assert page.locator(".cm-lineNumbers .cm-gutterElement").count() > 10
    name = page.locator(".cm-content").get_attribute("aria-label")
    assert name.startswith("Template source (YAML). Ctrl-Space completes")
    assert kind_browser.axe() == []

    # Break the unit's line by keyboard; the live preview reports it, the editor marks the line.
    line = page.locator(".cm-line", has_text="unit: s")
    for _ in range(12):  # CodeMirror draws the lines near the screen: scroll down to it
        if line.count():
            break
        page.mouse.wheel(0, 300)
        page.wait_for_timeout(100)
    line.first.click()
    page.keyboard.press("End")
    page.keyboard.type("parsecs")
    page.locator(".issue-list li", has_text="parsecs").wait_for()
    page.locator(".cm-lint-marker-error").first.wait_for()
    assert page.locator(".cm-lintRange-error", has_text="parsecs").count() == 1
    assert "parsecs" in page.locator("textarea#source").input_value()
    kind_browser.shot(f"editor-error-{width}")
    assert violations == []


def test_the_editor_completes_functions_and_catalog_fields(kind_browser, course, author):
    page = kind_browser.page
    _open(kind_browser, course, author)
    page.locator(".cm-editor").wait_for()
    page.locator(".cm-line", has_text="answer:").first.click()
    page.keyboard.press("End")
    page.keyboard.type(" * ridge_po")
    page.keyboard.press("Control+Space")
    option = page.locator(".cm-tooltip-autocomplete li", has_text="ridge_point")
    option.first.wait_for()
    page.keyboard.press("Escape")
    page.keyboard.type("(acc, 'bf16') * acc.memory_band")
    page.keyboard.press("Control+Space")
    field = page.locator(".cm-tooltip-autocomplete li", has_text="memory_bandwidth")
    field.first.wait_for()
    assert "B/s" in field.first.inner_text()
    kind_browser.shot("editor-completion")


def test_without_javascript_the_textarea_is_the_editor(browser, live_server, course, author):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(author.username)
    from tests.factories import PASSWORD

    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    template = make_template(course)
    page.goto(f"/studio/templates/{template.slug}/edit/")
    area = page.locator("textarea#source")
    assert area.is_visible() and page.locator(".cm-editor").count() == 0
    area.fill(template.draft_source.replace("rtol: 0.02", "rtol: 0.03"))
    page.get_by_role("button", name="Save draft").click()
    assert "Draft saved" in page.content()
    context.close()
