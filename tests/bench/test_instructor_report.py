"""The instructor pages' section of docs/BENCHMARKS.md: sizes side by side with the tree before,
the query counts, the growth and whether each page is within 10x the floor."""

from __future__ import annotations

from bench.instructorpages import section


def _run(size, students, item_index_ms, queries=10, floor_ms=2.0):
    pages = {
        "floor (minimal view)": {"median_ms": floor_ms, "floor_ratio": 1.0, "queries": 2},
        "item index": {
            "median_ms": item_index_ms,
            "floor_ratio": item_index_ms / floor_ms,
            "queries": queries,
        },
    }
    return {
        "size": size,
        "students": students,
        "pages": pages,
        "commit": "abc1234",
        "load_average": [[1.5, 1, 1], [1.7, 1, 1]],
    }


def _result(*runs):
    machine = {"date": "2026-12-06 18:00 UTC", "cpu": "x", "nproc": 2, "postgresql": "15"}
    return {"data": {"runs": list(runs)}, "machine": machine}


def test_the_section_shows_each_size_beside_the_tree_before_and_judges_the_target():
    after = _result(_run(300, 303, 18.0), _run(3000, 3003, 19.0))
    before = _result(_run(300, 303, 160.0, queries=8), _run(3000, 3003, 790.0, queries=8))
    text, targets = section(after, before)
    row = next(line for line in text.splitlines() if line.startswith("| item index"))
    assert row.split(" | ")[1:5] == [
        "18.0 ms (9.0×)",
        "160.0 ms (80.0×)",
        "19.0 ms (9.5×)",
        "790.0 ms (395.0×)",
    ]
    assert "| 10 |" in row and "commit abc1234" in text and "303 students: 1.5 → 1.7" in text
    assert targets == [
        ("item index within 10× the floor at every size (PostgreSQL)", "**met** (worst 9.5×)")
    ]


def test_a_page_over_ten_times_the_floor_is_not_met():
    _, targets = section(_result(_run(300, 303, 18.0), _run(3000, 3003, 25.0)), None)
    assert targets[0][1] == "**not met** (worst 12.5×)"


def test_growth_is_read_on_the_ratio_so_a_busier_minute_for_every_page_reads_flat():
    # The larger class measured in a busier minute: the floor and the page both twice as slow.
    runs = _run(300, 303, 18.0), _run(3000, 3003, 36.0, floor_ms=4.0)
    text, _ = section(_result(*runs), None)
    row = next(line for line in text.splitlines() if line.startswith("| item index"))
    assert row.rstrip(" |").endswith("0.00")


def test_the_section_says_how_the_classes_were_seeded():
    grown = [_run(300, 303, 18.0), _run(3000, 3003, 19.0)]
    grown[0]["seeding"] = {"seconds": 40.0, "workers": 2}
    grown[1]["seeding"] = {"seconds": 380.4, "workers": 2}
    text, _ = section(_result(*grown), None)
    assert "2 processes drawing" in text and "to 303 in 40 s, to 3003 in 380 s" in text
    given = [_run(300, 303, 18.0), _run(3000, 3003, 19.0)]
    for run in given:
        run["seeding"] = None
    text, _ = section(_result(*given), None)
    assert "seeded beforehand" in text and "processes drawing" not in text
