"""`make bench`: benchmarks, load and fault runs that write docs/BENCHMARKS.md.

Modules: `stats` (percentiles and summaries), `machine` (what the figures were measured on),
`grading` and `variants` (the pure engine, no database), `pages` (server time and SQL queries
of real pages, in process, per database and class size), `pg` (a throwaway PostgreSQL cluster),
`site` (a gunicorn site on loopback and a small browser-like HTTP client), `load`, `faults` and
`hostile` (runs against that site), `integrity` (database checks after them), `report`
(the Markdown page). Run as `python -m bench`; `--help` lists the flags.
"""
