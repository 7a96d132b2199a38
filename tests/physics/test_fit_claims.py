"""Question templates that say whether something fits: every variant agrees with memory_fits at
the level the template states (a serving engine's budget unless it says otherwise; see
docs/physics.md, "Usable memory")."""

from pathlib import Path

import pytest

from content.physics import accelerator, memory_fits, min_gpus, weights_bytes
from quizzes.engine import generate_variant, parse_template
from quizzes.engine.namespace import names_for
from quizzes.engine.render import render_text

QUESTIONS = Path(__file__).resolve().parents[2] / "content" / "questions"


def _template(relative):
    path = QUESTIONS / relative
    return parse_template(path.read_text(), source=str(path))


def _choices(template, name):
    return next(p.values for p in template.parameters if p.name == name)


@pytest.fixture(scope="module")
def kv_cache_fits():
    return _template("examples/kv-cache-fits.yaml")


@pytest.mark.parametrize("seed", range(40))
def test_fewest_gpus_is_the_least_count_that_fits_the_reported_memory(kv_cache_fits, seed):
    variant = generate_variant(kv_cache_fits, seed)
    total, gpus, acc = variant.answers["total"], variant.answers["gpus"], variant.params["acc"]
    assert gpus == min_gpus(total, acc)
    assert memory_fits(total, acc, int(gpus))
    assert gpus == 1 or not memory_fits(total, acc, int(gpus) - 1)


@pytest.fixture(scope="module")
def parallelism_choice():
    return _template("interconnect/parallelism-choice.yaml")


def test_a_7b_model_fits_easily_on_one_gpu_of_every_part_offered(parallelism_choice):
    for name in _choices(parallelism_choice, "acc"):
        weights = weights_bytes("llama-2-7b", "bf16")
        assert memory_fits(weights, name)
        assert weights < 0.5 * accelerator(name).memory_bytes  # "easily": room for KV cache


# A 70B model in bf16 (about 141 GB of weights) misses the H100 and A100 at any level. At a
# serving engine's budget (vLLM's 0.9 of the runtime's total) one B200 (172 GB) holds it and
# one H200 (135 GB) does not: the H200 holds it only on paper, against the driver's 150.75 GB.
# The template's texts say it fits whole only on the largest parts.
LARGE_PARTS = ("B200",)


@pytest.mark.parametrize("name", ["H100", "H200", "B200", "A100"])
def test_a_70b_model_in_16_bit_fits_one_gpu_only_on_the_largest_parts(parallelism_choice, name):
    assert name in _choices(parallelism_choice, "acc")
    for model in ("llama-2-70b", "llama-3-70b"):
        assert memory_fits(weights_bytes(model, "bf16"), name) == (name in LARGE_PARTS)
    on_paper = memory_fits(weights_bytes("llama-3-70b", "bf16"), name, level="driver")
    assert on_paper == (name in ("H200", "B200"))


def _texts(template, variant):
    names = names_for(variant.params, variant.answers)
    with variant.replaying():
        shown = [render_text(template, template.prompt, names)]
        for part in template.parts:
            options = getattr(part.settings, "options", ())
            shown += [render_text(template, o.feedback, names) for o in options]
    return " ".join(shown)


def test_no_latency_variant_says_a_70b_model_cannot_fit_where_it_fits(parallelism_choice):
    seen = set()
    for seed in range(60):
        variant = generate_variant(parallelism_choice, seed)
        if variant.params["goal"] != "latency":
            continue
        acc = variant.params["acc"]
        seen.add(acc.key)
        text = _texts(parallelism_choice, variant).lower()
        assert "does not fit" not in text and "cannot fit" not in text
        assert "fit whole only on the largest gpus" in text
        # The claim the texts do make holds on this part: the weights fit only on the large ones.
        fits = memory_fits(weights_bytes("llama-3-70b", "bf16"), acc)
        assert fits == (acc.key in {accelerator(n).key for n in LARGE_PARTS})
    assert {accelerator(n).key for n in LARGE_PARTS} <= seen
