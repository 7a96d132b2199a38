"""Hostile input through the HTTP endpoints of a served site (run inside Django).

A logged-in student with an open homework attempt sends the grader's hostile corpus as answers,
oversize and malformed posts, forged attempt, variant and part ids, and wrong methods.  Every
reply must be a clear refusal: a 4xx, or a 200 whose fragment says what is wrong; never a 500,
never over 2 seconds.
"""

from __future__ import annotations

import re
import uuid

from bench.browser import Browser, forms
from bench.djangoside import BENCH_PASSWORD
from bench.loadprep import quiz_page

LIMIT_S = 2.0
CLEAR = re.compile(r'feedback (invalid|incorrect|correct)|role="alert"|class="error', re.S)


def _corpus() -> list[str]:
    from tests.grading.test_hostile import HOSTILE

    return list(HOSTILE)


def command(args) -> dict:
    from quizzes.models import Variant

    browser = Browser(args.port)
    _, login = browser.login(f"{args.prefix}0001", BENCH_PASSWORD)
    assert login.status == 302, f"hostile run could not log in: {login.status}"
    quiz_url = quiz_page("bench-homework")
    quiz = browser.get(quiz_url)
    start = next(f for f in forms(quiz.body) if f.action.endswith("/start/"))
    started = browser.post(start.action, start.fields)
    attempt_id = int(re.search(r"/attempts/(\d+)/", started.location).group(1))
    attempt_url = started.location.split("#", 1)[0]
    page = browser.get(attempt_url).body
    parts = [f for f in forms(page) if "idempotency_key" in f.fields]
    by_kind = {}
    for form in parts:
        kind = "choice" if form.choices else "text"
        by_kind.setdefault(kind, form)
    text_forms = [f for f in parts if f.text_answer][:3]
    token = parts[0].fields["csrfmiddlewaretoken"]
    other = Variant.objects.exclude(attempt_id=attempt_id).order_by("pk").first()
    cases: list[tuple[str, str, str, dict | bytes | None, dict]] = []

    def post(name, path, fields, headers=None):
        cases.append((name, "POST", path, fields, headers or {"HX-Request": "true"}))

    def fresh(form, answer, **extra):
        return {**form.fields, "answer": answer, "idempotency_key": uuid.uuid4().hex, **extra}

    for text in _corpus():
        for form in text_forms:
            post(f"corpus as answer: {text[:30]!r}", form.action, fresh(form, text))
            if "formula" in page and "preview" not in form.action:
                preview = form.action + "preview/"
                cases.append(
                    (
                        f"corpus in preview: {text[:30]!r}",
                        "GET",
                        preview,
                        {"answer": text},
                        {"HX-Request": "true"},
                    )
                )
    form = text_forms[0]
    post("answer of 600 characters", form.action, fresh(form, "1" * 600))
    post("body of 3 MB", form.action, fresh(form, "1" * 3_000_000))
    post("2,500 fields", form.action, {**fresh(form, "1"), **{f"f{i}": "x" for i in range(2500)}})
    post(
        "no answer field", form.action, {k: v for k, v in fresh(form, "").items() if k != "answer"}
    )
    post("thirty answers", form.action, {**fresh(form, "1"), "answer": ["1"] * 30})
    post("no idempotency key", form.action, {"csrfmiddlewaretoken": token, "answer": "1"})
    post("forged idempotency key", form.action, fresh(form, "1", idempotency_key="'; DROP TABLE--"))
    post("no CSRF token", form.action, {"answer": "1", "idempotency_key": uuid.uuid4().hex})
    cases.append(
        (
            "invalid UTF-8 body",
            "POST",
            form.action,
            b"csrfmiddlewaretoken="
            + token.encode()
            + b"&answer=%FF%FE%00&idempotency_key="
            + uuid.uuid4().hex.encode(),
            {"HX-Request": "true"},
        )
    )
    cases.append(
        (
            "broken multipart",
            "POST",
            form.action,
            b'--x\r\nContent-Disposition: form-data; name="answer"\r\n\r\n1',
            {"Content-Type": "multipart/form-data; boundary=y", "HX-Request": "true"},
        )
    )
    if "choice" in by_kind:
        choice = by_kind["choice"]
        post("unknown option", choice.action, fresh(choice, "zz"))
        post("option of 100 characters", choice.action, fresh(choice, "a" * 100))
    forged = form.action.split("/")
    post(
        "forged attempt id",
        form.action.replace(f"/attempts/{attempt_id}/", "/attempts/999999999/"),
        fresh(form, "1"),
    )
    if other is not None:
        post(
            "another student's attempt",
            form.action.replace(f"/attempts/{attempt_id}/", f"/attempts/{other.attempt_id}/"),
            fresh(form, "1"),
        )
        post(
            "a variant of another attempt",
            re.sub(r"/variants/\d+/", f"/variants/{other.pk}/", form.action),
            fresh(form, "1"),
        )
    post(
        "forged part id",
        re.sub(r"/parts/[\w-]+/", "/parts/no-such-part/", form.action),
        fresh(form, "1"),
    )
    post(
        "huge variant id",
        re.sub(r"/variants/\d+/", "/variants/99999999999999999999/", form.action),
        fresh(form, "1"),
    )
    cases.append(("GET on the answer form", "GET", form.action, None, {}))
    cases.append(("PUT on the answer form", "PUT", form.action, b"answer=1", {}))
    cases.append(("DELETE on start", "DELETE", start.action, None, {}))
    cases.append(("GET on start", "GET", start.action, None, {}))
    quiz_list = quiz_url.rsplit("/", 2)[0] + "/"
    cases.append(("POST on the quiz list", "POST", quiz_list, {"csrfmiddlewaretoken": token}, {}))
    cases.append(("GET on submit attempt", "GET", f"{attempt_url}submit/", None, {}))
    del forged

    results, problems = [], []
    from urllib.parse import urlencode

    for name, method, path, fields, headers in cases:
        body = None
        if isinstance(fields, dict):
            if method == "GET":
                path = path + "?" + urlencode(fields, doseq=True)
            else:
                body = urlencode(fields, doseq=True).encode()
        elif isinstance(fields, bytes):
            body = fields
        sent = {"Referer": f"http://127.0.0.1:{args.port}{path}", **headers}
        if body is not None and "Content-Type" not in sent:
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            reply = browser.request(method, path, body=body, headers=sent)
        except Exception as error:  # noqa: BLE001 - a dropped connection is a failure to report
            browser.close()
            problems.append(f"{name}: no reply ({type(error).__name__})")
            continue
        clear = reply.status in range(400, 500) or (
            reply.status in (200, 302) and (reply.status == 302 or CLEAR.search(reply.body))
        )
        row = {
            "case": name,
            "status": reply.status,
            "ms": reply.seconds * 1000,
            "clear": bool(clear),
        }
        results.append(row)
        if reply.status >= 500:
            problems.append(f"{name}: HTTP {reply.status}")
        if reply.seconds > LIMIT_S:
            problems.append(f"{name}: {reply.seconds:.2f} s")
        if not clear:
            problems.append(f"{name}: HTTP {reply.status} without a clear message")
    browser.close()
    statuses: dict[str, int] = {}
    for row in results:
        statuses[str(row["status"])] = statuses.get(str(row["status"]), 0) + 1
    return {
        "requests": len(cases),
        "answered": len(results),
        "statuses": statuses,
        "slowest_ms": max((r["ms"] for r in results), default=0),
        "slowest_case": max(results, key=lambda r: r["ms"])["case"] if results else None,
        "server_errors": sum(r["status"] >= 500 for r in results),
        "problems": problems,
        "ok": not problems,
        "rows": results,
    }
