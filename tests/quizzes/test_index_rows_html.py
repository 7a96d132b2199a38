"""The item index's rows, drawn with only their text escaped, are the rows `format_html_join`
drew with every value escaped (issue 34: the escaping of every figure was a third of the
page's time)."""

from __future__ import annotations

from django.utils.html import format_html_join

from quizzes.presenters.instructor import INDEX_ROW, index_rows_html


def _escaping_everything(rows, items_url, row_query):
    return format_html_join(
        "\n",
        INDEX_ROW,
        (
            (items_url, r["slug"], row_query, r["title"], r["slug"], r["chapter"], r["answered"])
            + (r["mean"], r["first"], r["p"], " low" if r["low"] else "", r["r"], r["ul"])
            for r in rows
        ),
    )


ROWS = [
    {
        "slug": "kv-cache-fits",
        "title": 'The <b>KV</b> cache & "fits"',
        "chapter": "Inference — <i>decode</i>",
        "answered": 312,
        "mean": "68%",
        "first": "—",
        "p": "0.61",
        "r": "-0.05",
        "low": True,
        "ul": "0.40",
    },
    {
        "slug": "plain",
        "title": "Plain",
        "chapter": "—",
        "answered": 0,
        "mean": "—",
        "first": "—",
        "p": "—",
        "r": "<script>",  # not a figure this module makes: escaped all the same
        "low": False,
        "ul": "1.00",
    },
]


def test_the_rows_are_those_that_escaping_every_value_gave():
    url, query = "/o/x/instructor/items/", "?quiz=q1&group=2"
    html = index_rows_html(ROWS, url, query)
    assert html == _escaping_everything(ROWS, url, query)
    assert "&lt;b&gt;KV&lt;/b&gt; cache &amp; &quot;fits&quot;" in html
    assert "?quiz=q1&amp;group=2" in html and "&lt;script&gt;" in html
    assert index_rows_html([], url, "") == ""


def test_an_attribute_break_in_any_text_stays_inside_its_attribute():
    # The author's title and slug and the page's own link and filter are the only texts; each
    # reaches the page escaped, so a quote cannot end the link's href and start a handler.
    hostile = dict(ROWS[1], slug='x" onmouseover="alert(1)', title="<img src=x onerror=alert(1)>")
    html = index_rows_html([hostile], '/o/x/"><script>/', "?q='><svg onload=alert(1)>")
    assert html == _escaping_everything([hostile], '/o/x/"><script>/', "?q='><svg onload=alert(1)>")
    assert "<img" not in html and "<script>" not in html and "<svg" not in html
    assert 'x" onmouseover' not in html and "x&quot; onmouseover" in html
