"""Question templates whose title states a fact: every variant must bear it out."""

from pathlib import Path

import pytest

from quizzes.engine import generate_variant, parse_template

QUESTIONS = Path(__file__).resolve().parents[2] / "content" / "questions"


@pytest.fixture(scope="module")
def compute_outran_bandwidth():
    path = QUESTIONS / "intro" / "intro-compute-outran-bandwidth.yaml"
    return parse_template(path.read_text(), source=str(path))


def test_compute_outran_bandwidth_keeps_its_slug(compute_outran_bandwidth):
    assert compute_outran_bandwidth.slug == "intro-compute-outran-bandwidth"


@pytest.mark.parametrize("seed", range(60))
def test_every_variant_of_compute_outran_bandwidth_bears_out_its_title(
    compute_outran_bandwidth, seed
):
    answers = generate_variant(compute_outran_bandwidth, seed).to_json()["answers"]
    # "grew" in the prompts: both figures rose; the title: compute rose faster than bandwidth.
    assert answers["compute"] > 1
    assert answers["bandwidth"] > 1
    assert answers["ridge_growth"] > 1
