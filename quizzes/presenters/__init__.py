"""Presentation: what the quizzes app's pages show, built from rows the services read.

Layers (checked by import-linter in `make check`): `quizzes.views` -> `quizzes.presenters` ->
`quizzes.services` -> `quizzes.models`. A presenter builds view-models (plain dataclasses, one
per page element: an item, a part, a try) and renders text to HTML (`markup`), keeping
rendered questions in the render cache (`display`); it runs no query of its own beyond the
service readers it calls. Views parse the request, call a service or a presenter, render.

- `display`: a variant's question, parts, hints and solution as HTML (render cache).
- `markup`: Markdown and math to sanitized HTML, feedback that quotes the student literally.
- `attempt`: the attempt page's item blocks, and the block after a Check.
- `student_parts`: one part of an attempt as the student's pages show it, its results, its URLs.
- `fragments`: the attempt page's question sections, memoised on what each one shows.
- `page_memo`: the whole warm attempt page, memoised per process on the attempt's stamp.
- `results`: the results page's items and the instructor's score overrides.
- `progress`: the quiz list, My progress and the results page's roofline charts.
- `studio`: the studio's histograms, diffs and preview HTML.
- `charts`: the one bar-chart geometry every histogram is drawn with.
- `instructor`: the instructor pages' charts, item index order, one student's variants (drawn by
  `display`, the student pages' renderer) and variant search rows.
"""
