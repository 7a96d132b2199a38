"""The two shapes of a class's day the load harness drives, and the check that each was done.

A load figure is only worth what the run exercised, so after every run `exercised` compares
what each simulated student actually did (counted from acknowledged replies, not from what was
sent) with what the scenario says it does; a run where any student skipped a step fails, and a
run where nothing of a kind was exercised says so in its first problem.  Pure code: no Django.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bench.stats import summarize

# Request kinds of the report, each from the endpoints the simulated student calls.
KINDS = {
    "login": ("login page", "log in"),
    "page": ("quiz page", "question page"),
    "start": ("start attempt",),
    "answer post": ("submit part",),
    "autosave": ("autosave",),
    "submit": ("submit exam",),
}


@dataclass(frozen=True)
class Scenario:
    name: str
    exam: bool  # log in, start the timed exam, autosave while typing, submit at the deadline
    homework: bool  # log in, open the homework, post a graded answer to every part
    window_s: float  # arrivals spread uniformly over this many seconds
    submit_at_s: float | None  # exam: everyone submits together this long after the start
    deadline_s: float  # the run stops by itself after this long, finished or not
    description: str = ""
    # Exam: the pause before a part's first save (reading and working it out) and before its
    # final save (typing the rest), in seconds; each drawn uniformly from its range.
    think_s: tuple[float, float] = (1.0, 4.0)
    typing_s: tuple[float, float] = (1.0, 4.0)
    # Exam: every student saves every part before the deadline (the pauses shrink to fit), or
    # works through the parts in an order of their own and submits what the deadline finds.
    every_part: bool = True


EXAM_MINUTE = "exam minute"
EXAM_START = "exam start"
HOMEWORK_EVENING = "homework evening"


def scenarios(*, quick: bool) -> list[Scenario]:
    """The exam minute, the exam start and the homework evening, shortened for `--quick`."""
    window, evening = (15.0, 30.0) if quick else (60.0, 600.0)
    submit_at = window + (15.0 if quick else 60.0)
    start_submit_at = window + (30.0 if quick else 120.0)
    think = (5.0, 15.0) if quick else (20.0, 60.0)
    arrivals = {"exam": True, "homework": False, "window_s": window}  # both exam shapes
    return [
        Scenario(
            EXAM_MINUTE,
            **arrivals,
            submit_at_s=submit_at,
            deadline_s=submit_at + 120.0,
            description=(
                f"every student logs in and starts the timed exam within {window:.0f} s, "
                "autosaves each text part twice as they type (a partial answer, then the "
                "final one; 1-4 s between saves, as the page saves 0.8 s after the last "
                f"keystroke) and each choice once, and all submit together at {submit_at:.0f} s"
            ),
        ),
        Scenario(
            EXAM_START,
            **arrivals,
            submit_at_s=start_submit_at,
            deadline_s=start_submit_at + 120.0,
            think_s=think,
            every_part=False,
            description=(
                f"every student logs in and starts the timed exam within {window:.0f} s, as "
                "in the exam minute, then works at a student's pace: parts in an order of "
                f"their own, {think[0]:.0f}-{think[1]:.0f} s reading and working out before a "
                "part's first save, 1-4 s typing before its final one; all submit together "
                f"at {start_submit_at:.0f} s with the parts they reached"
            ),
        ),
        Scenario(
            HOMEWORK_EVENING,
            exam=False,
            homework=True,
            window_s=evening,
            submit_at_s=None,
            deadline_s=evening + 180.0,
            description=(
                f"students arrive over {evening:.0f} s, open the homework and post a graded "
                "answer to every part (numbers, formulas and choices; one post in ten twice, "
                "as a double click)"
            ),
        ),
    ]


@dataclass
class Progress:
    """What one student got acknowledged by the site."""

    logged_in: bool = False
    exam_started: bool = False
    exam_parts: int = 0
    autosaves_acked: int = 0
    autosaves_by_kind: dict[str, int] = field(default_factory=dict)  # acknowledged, by kind
    exam_submitted: bool = False
    homework_opened: bool = False
    homework_parts: dict[str, int] = field(default_factory=dict)  # by part kind
    homework_acked: dict[str, int] = field(default_factory=dict)  # by part kind


def exercised(scenario: Scenario, progress: dict[str, Progress], students: int) -> dict:
    """Every student did every step of `scenario`; totals per step; problems if not."""
    problems: list[str] = []
    rows = [progress.get(name, Progress()) for name in sorted(progress)]
    rows += [Progress()] * max(0, students - len(rows))  # students that never even started
    totals = {
        "students": students,
        "logged_in": sum(p.logged_in for p in rows),
        "exam_started": sum(p.exam_started for p in rows),
        "autosaves_acked": sum(p.autosaves_acked for p in rows),
        "exam_submitted": sum(p.exam_submitted for p in rows),
        "homework_opened": sum(p.homework_opened for p in rows),
        "homework_acked": {},
        "autosaves_by_kind": {},
    }
    for p in rows:
        for kind, n in p.autosaves_by_kind.items():
            totals["autosaves_by_kind"][kind] = totals["autosaves_by_kind"].get(kind, 0) + n
        for kind, n in p.homework_acked.items():
            totals["homework_acked"][kind] = totals["homework_acked"].get(kind, 0) + n

    def short(step: str, done: int) -> None:
        if done < students:
            problems.append(f"{students - done} of {students} students did not {step}")

    if students == 0:
        problems.append("the run had no students")
    short("log in", totals["logged_in"])
    if scenario.exam:
        if totals["exam_started"] == 0:
            problems.insert(0, "no student started the exam: the run exercised nothing")
        short("start the exam", totals["exam_started"])
        unsaved = sum(1 for p in rows if p.exam_started and p.autosaves_acked < p.exam_parts)
        if unsaved or (totals["exam_started"] and totals["autosaves_acked"] == 0):
            problems.append(f"{unsaved} students had an autosave not acknowledged")
        idle = sum(1 for p in rows if p.exam_started and p.exam_parts == 0)
        if idle:
            problems.append(f"{idle} students started the exam and saved no part")
        short("submit the exam", totals["exam_submitted"])
        for kind in ("numeric", "formula"):
            if not totals["autosaves_by_kind"].get(kind):
                problems.append(f"no {kind} exam answer was saved")
    if scenario.homework:
        if totals["homework_opened"] == 0 or not any(totals["homework_acked"].values()):
            problems.insert(0, "no homework answer was acknowledged: the run exercised nothing")
        short("open the homework", totals["homework_opened"])
        missing = sum(
            1
            for p in rows
            if p.homework_opened
            and any(p.homework_acked.get(k, 0) < n for k, n in p.homework_parts.items())
        )
        if missing:
            problems.append(f"{missing} students had a part without an acknowledged answer")
        for kind in ("numeric", "formula"):
            if not totals["homework_acked"].get(kind):
                problems.append(f"no {kind} homework answer was acknowledged")
    return {"ok": not problems, "problems": problems, **totals}


WINDOW_S = 20.0  # the width of a run's time windows in `by_window`


def by_window(
    timings: dict[str, list[float]],
    sent_at: dict[str, list[float]],
    kinds: tuple[str, ...] = ("autosave", "answer post"),
) -> dict:
    """{kind: [{from_s, to_s, n, p50_ms, p95_ms}, ...]}: each kind's latencies by when the
    request was sent, in windows of WINDOW_S from the run's start (kinds with none left out)."""
    found = {}
    for kind in kinds:
        windows: dict[int, list[float]] = {}
        for endpoint in KINDS[kind]:
            for seconds, at in zip(timings.get(endpoint, []), sent_at.get(endpoint, [])):
                windows.setdefault(int(at // WINDOW_S), []).append(seconds)
        rows = []
        for index in sorted(windows):
            s = summarize(windows[index])
            rows.append(
                {
                    "from_s": index * WINDOW_S,
                    "to_s": (index + 1) * WINDOW_S,
                    "n": len(windows[index]),
                    "p50_ms": s["median_ms"],
                    "p95_ms": s["p95_ms"],
                }
            )
        if rows:
            found[kind] = rows
    return found


def by_phase(
    timings: dict[str, list[float]],
    sent_at: dict[str, list[float]],
    phases: dict[str, tuple[float, float]],
    kinds: tuple[str, ...] = ("autosave", "answer post"),
) -> dict:
    """{kind: {phase: {n, p50_ms, p95_ms}}}: each kind's latencies over the requests sent
    within each phase's [from, to) seconds of the run (phases without requests left out)."""
    found = {}
    for kind in kinds:
        pairs = [
            (seconds, at)
            for endpoint in KINDS[kind]
            for seconds, at in zip(timings.get(endpoint, []), sent_at.get(endpoint, []))
        ]
        rows = {}
        for phase, (start, end) in phases.items():
            times = [seconds for seconds, at in pairs if start <= at < end]
            if times:
                s = summarize(times)
                rows[phase] = {"n": len(times), "p50_ms": s["median_ms"], "p95_ms": s["p95_ms"]}
        if rows:
            found[kind] = rows
    return found


PHASES = ("while the class arrives", "once all have arrived", "from the deadline on")


def phases_of(scenario: Scenario) -> dict[str, tuple[float, float]]:
    """The parts of a run whose latencies the report compares: while students still arrive,
    once all have, and (an exam) from the common deadline on."""
    end = scenario.submit_at_s if scenario.submit_at_s is not None else float("inf")
    arriving, arrived, deadline = PHASES
    phases = {arriving: (0.0, scenario.window_s), arrived: (scenario.window_s, end)}
    if scenario.submit_at_s is not None:
        phases[deadline] = (scenario.submit_at_s, float("inf"))
    return phases


def by_kind(timings: dict[str, list[float]], statuses: dict[str, dict[str, int]]) -> dict:
    """{kind: {n, p50/p95/p99 ms, errors, timeouts}} over the endpoints of each kind."""
    found = {}
    for kind, endpoints in KINDS.items():
        times = [t for e in endpoints for t in timings.get(e, [])]
        counts: dict[str, int] = {}
        for e in endpoints:
            for status, n in statuses.get(e, {}).items():
                counts[status] = counts.get(status, 0) + n
        entry = {
            "n": len(times),
            "errors": counts.get("error", 0) + sum(n for s, n in counts.items() if s[:1] == "5"),
            "timeouts": counts.get("timeout", 0),
            "p50_ms": None,
            "p95_ms": None,
            "p99_ms": None,
        }
        if times:
            s = summarize(times)
            entry.update(p50_ms=s["median_ms"], p95_ms=s["p95_ms"], p99_ms=s["p99_ms"])
        found[kind] = entry
    return found
