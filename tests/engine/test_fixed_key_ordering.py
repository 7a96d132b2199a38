"""The fixed-key rule of the publication gate covers ordering and matching parts too (bank
re-check 5, S5-7): a sequence or a set of pairs that is the same in over 90% of the variants
teaches one fact, as a choice part's fixed option does. Each probe is a small template written
to break the rule; the ordering kind's starter and the documentation example it copies pass."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from quizzes.engine import generate_variant, parse_template, validate_template

HEAD = """\
slug: rule-probe
title: A probe of one rule
chapter: inference
objectives: [Probe a plausibility rule]
difficulty: 2
parameters:
  x: {range: [1, 100], step: 1}
prompt: |
  A probe.
solution: |
  Because.
"""
ORDERING = """\
parts:
  - id: rank
    kind: ordering
    prompt: Highest first.
    order: descending
    items:
      - {{id: a, text: A, value: "{a}"}}
      - {{id: b, text: B, value: "50"}}
      - {{id: c, text: C, value: "1"}}
"""
MATCHING = """\
parts:
  - id: sort
    kind: matching
    prompt: Which side?
    categories:
      - {{id: low, text: low}}
      - {{id: high, text: high}}
    items:
      - {{id: a, text: A, match: '"low" if {cut} else "high"'}}
      - {{id: b, text: B, match: '"high"'}}
"""


ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "quizzes" / "engine" / "kinds" / "ordering" / "starter.yaml"
EXAMPLE = ROOT / "content" / "questions" / "examples" / "order-paths-by-bandwidth.yaml"


def fixed_key(text: str, seeds: int = 200):
    report = validate_template(parse_template(HEAD + text, source="rule-probe.yaml"), seeds=seeds)
    return [f for f in report.failures if f.check == "fixed-key"]


def test_a_matching_whose_pairs_never_change_is_refused():
    (failure,) = fixed_key(MATCHING.format(cut="x <= 97"))
    assert failure.part == "sort" and "a:low, b:high" in failure.message
    assert not fixed_key(MATCHING.format(cut="x <= 50"))


def test_an_ordering_whose_sequence_never_changes_is_refused():
    # a is 101-200, always above b and c: the order a > b > c at every seed
    (failure,) = fixed_key(ORDERING.format(a="x + 100"))
    assert failure.part == "rank" and "rule fixed-key" in failure.message
    assert "{a > b > c}" in failure.message


def test_an_ordering_whose_sequence_changes_passes():
    # a is above b at about half the seeds: two sequences, neither over 90%
    assert not fixed_key(ORDERING.format(a="x + 0.5"))


def test_an_ordering_key_counts_the_sequence_not_the_set_of_items():
    # every variant orders the same three ids; only the sequence tells them apart
    assert not fixed_key(ORDERING.format(a="x + 0.5 if x % 2 else 0.5"))


def test_the_old_paths_by_bandwidth_ordering_is_refused():
    # the example as it was (S5-7): the four paths by bandwidth, HBM > NVLink > PCIe > NIC on
    # every catalogued server, the same order at every seed
    old = EXAMPLE.read_text()
    head = old.split("parameters:")[0]
    text = (
        head
        + """parameters:
  acc: {choice: [A100, H100, H200, B200], catalog: accelerator}
  nic: {choice: [ib-hdr, ib-ndr], catalog: link}
constraints:
  - "(nic.key == 'ib-hdr') == (acc.link == 'nvlink3')"
prompt: Four paths.
parts:
  - id: paths
    kind: ordering
    prompt: Widest first.
    order: descending
    items:
      - {id: memory, text: memory, value: acc.memory_bandwidth}
      - {id: peer, text: peer, value: link(acc.link).bandwidth}
      - {id: host, text: host, value: link(acc.host_link).bandwidth}
      - {id: network, text: network, value: nic.bandwidth}
solution: Widest first.
"""
    )
    report = validate_template(parse_template(text, source="old.yaml"), seeds=200)
    (failure,) = [f for f in report.failures if f.check == "fixed-key"]
    assert "{memory > peer > host > network}" in failure.message


def test_the_ordering_starter_and_example_vary_their_order():
    # an author copies the starter: it must pass the rule it teaches, with no exemption
    for path in (STARTER, EXAMPLE):
        template = parse_template(path.read_text(), source=path.name)
        report = validate_template(template, seeds=300)
        assert report.ok, [str(f) for f in report.failures]
        orders = Counter(generate_variant(template, seed).answers["paths"] for seed in range(300))
        assert max(orders.values()) < 150 and len(orders) >= 6, orders.most_common(3)
