"""Variants: one deterministic draw of a template's parameters, answers and option order.

A variant is a pure function of (template, seed): the seed feeds a ``random.Random``, parameters
are drawn in the order the template lists them, constraints reject whole draws, and then every
answer, common-error value, option order and outcome category is computed.  ``to_json`` stores
all of it (catalog entries by key), so a stored variant never changes when the template does.

It never changes when the catalog does either: every catalog entry the variant looks up, while
drawing, computing its answers and rendering its texts, is kept in ``catalog`` (a snapshot of
the entries' figures with the catalog's fingerprint), and everything later done with the variant
(rendering, grading, feedback) reads those figures, not the live catalog.  Moving a variant to
corrected figures is an explicit regrade that recomputes its answers (``restamp``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import math
import random
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from content.expressions import ExpressionError, evaluate, is_catalog_object
from content.physics.catalog import snapshot as catalog_snapshot
from quizzes.engine import kinds, lookups
from quizzes.engine.errors import GenerationError, OverBudget
from quizzes.engine.model import CATALOGS, Expr, Parameter, Part, Template
from quizzes.engine.namespace import base_names, names_for


def variant_seed(secret: bytes, *parts: str | int) -> bytes:
    """HMAC-SHA256 of the site's secret over the student, the quiz item and the attempt number.

    Stable on reload, different between students, and not guessable without the secret.  The
    parts are joined unambiguously (length-prefixed), so ("ab", "c") and ("a", "bc") differ.
    """
    if isinstance(secret, str):
        secret = secret.encode()
    message = b"".join(
        len(encoded).to_bytes(4, "big") + encoded
        for encoded in (str(part).encode("utf-8") for part in parts)
    )
    return hmac.new(secret, message, hashlib.sha256).digest()


@dataclass(frozen=True)
class Variant:
    """One generated variant.

    ``params`` maps each parameter name to its value (catalog entries as objects); ``answers``
    maps part id to its kind's correct answer (a float, a formula's text, a tuple of option
    ids ...); ``common_errors`` maps part id to {code: value}; ``option_order`` maps the id
    of a part with items (options, things to order) to their ids as shown; ``catalog_keys``
    maps a catalog parameter to (catalog, key); ``catalog`` is the snapshot of every catalog
    entry the variant used (None for a variant stored before snapshots existed, which reads the
    live catalog).
    """

    slug: str
    seed: bytes | int
    params: dict[str, Any]
    answers: dict[str, Any]
    common_errors: dict[str, dict[str, float]] = field(default_factory=dict)
    option_order: dict[str, tuple[str, ...]] = field(default_factory=dict)
    outcome: str | None = None
    catalog_keys: dict[str, tuple[str, str]] = field(default_factory=dict)
    catalog: dict[str, Any] | None = field(default=None, compare=False)

    def key(self) -> str:
        """A canonical text of the parameters, to count distinct variants."""
        return json.dumps(self.to_json()["params"], sort_keys=True)

    def to_json(self) -> dict[str, Any]:
        """A dict of JSON types only (store it in a JSONField or ``json.dumps`` it)."""
        params = {}
        for name, value in self.params.items():
            if name in self.catalog_keys:
                catalog, key = self.catalog_keys[name]
                params[name] = {"catalog": catalog, "key": key}
            else:
                params[name] = _plain(value, name)
        seed = {"hex": self.seed.hex()} if isinstance(self.seed, bytes) else {"int": self.seed}
        data = {
            "slug": self.slug,
            "seed": seed,
            "params": params,
            "answers": {k: _plain(v, k) for k, v in self.answers.items()},
            "common_errors": {k: dict(v) for k, v in self.common_errors.items()},
            "option_order": {k: list(v) for k, v in self.option_order.items()},
            "outcome": self.outcome,
        }
        if self.catalog is not None:
            data["catalog"] = self.catalog
        return data

    def replaying(self):
        """A context in which catalog look-ups resolve to this variant's own figures."""
        return catalog_snapshot.using(self.catalog)

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str) -> Variant:
        """Rebuild a variant from ``to_json()`` output (a dict or its JSON text)."""
        if isinstance(data, str):
            data = json.loads(data)
        seed = data["seed"]
        snap = data.get("catalog")
        lookups = base_names()
        params: dict[str, Any] = {}
        keys: dict[str, tuple[str, str]] = {}
        for name, value in data["params"].items():
            if isinstance(value, dict) and set(value) == {"catalog", "key"}:
                if snap is not None:
                    params[name] = catalog_snapshot.lookup(snap, value["catalog"], value["key"])
                else:
                    params[name] = lookups[value["catalog"]](value["key"])
                keys[name] = (value["catalog"], value["key"])
            else:
                params[name] = value
        answers = {k: tuple(v) if isinstance(v, list) else v for k, v in data["answers"].items()}
        return cls(
            slug=data["slug"],
            seed=bytes.fromhex(seed["hex"]) if "hex" in seed else seed["int"],
            params=params,
            answers=answers,
            common_errors={k: dict(v) for k, v in data.get("common_errors", {}).items()},
            option_order={k: tuple(v) for k, v in data.get("option_order", {}).items()},
            outcome=data.get("outcome"),
            catalog_keys=keys,
            catalog=snap,
        )


def _plain(value: Any, name: str) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{name} is not finite ({value}) and cannot be stored")
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v, name) for v in value]
    raise ValueError(
        f"{name} is a {type(value).__name__}; a stored value must be a number, text, "
        "a list or a catalog choice"
    )


def _rng(seed: bytes | int) -> random.Random:
    if isinstance(seed, bool) or not isinstance(seed, (bytes, int)):
        raise TypeError("a variant seed is bytes or an int")
    return random.Random(seed)


def generate_variant(
    template: Template,
    seed: bytes | int,
    *,
    record_texts: bool = True,
    deadline: float | None = None,
) -> Variant:
    """Generate the variant of ``template`` for ``seed`` (same seed, same variant).

    ``record_texts=False`` leaves the texts' own catalog look-ups out of the snapshot (for
    validation, which renders every text itself and stores nothing).

    Raises ``ExpressionError`` (naming the file and line) when an expression fails, and
    ``GenerationError`` when the constraints are not met within ``template.max_tries`` draws.
    With ``deadline`` (a ``time.monotonic()`` value), ``OverBudget`` once it passes mid-draw.
    """
    rng = _rng(seed)
    with catalog_snapshot.recording() as used:
        params, keys = _draw_parameters(template, rng, deadline)
        answers, common = compute_answers(template, params)
        order = _option_orders(template, rng)
        outcome = compute_outcome(template, params, answers)
        variant = Variant(template.slug, seed, params, answers, common, order, outcome, keys)
        if record_texts:
            catalog_snapshot.keep(text_lookups(template, variant))
    return dataclasses.replace(variant, catalog=catalog_snapshot.snapshot(used))


def text_lookups(template: Template, variant: Variant) -> dict[tuple[str, str], Any]:
    """The catalog entries ``variant``'s texts look up: read off the expressions that can look
    something up (``engine.lookups``), or, where the template's plan says so or one of them
    fails, by rendering every text of the variant."""
    found = lookups.looked_up(template, variant)
    if found is not None:
        return found
    with catalog_snapshot.recording(propagate=False) as used:
        _touch_texts(template, variant)
    return dict(used)


def generate_variant_at(
    template: Template, chosen: Mapping[str, Any], *, seed: int = 0
) -> Variant | None:
    """The variant whose drawn parameters take the values ``chosen`` (choice values, range and
    loguniform numbers; derived parameters are computed), or None when the constraints refuse
    it: how the publication gate draws each parameter's extremes (``extremes``)."""
    rng = _rng(seed)
    with catalog_snapshot.recording() as used:
        params: dict[str, Any] = {}
        keys: dict[str, tuple[str, str]] = {}
        for parameter in template.parameters:
            if parameter.kind == "value":
                value, key = _draw(template, parameter, rng, params)
            elif parameter.kind == "choice" and parameter.catalog:
                key = (parameter.catalog, chosen[parameter.name])
                value = base_names()[parameter.catalog](chosen[parameter.name])
            else:
                value, key = chosen[parameter.name], None
            params[parameter.name] = value
            if key is not None:
                keys[parameter.name] = key
        names = names_for(params)
        if not all(_eval(template, c, names) for c in template.constraints):
            return None
        answers, common = compute_answers(template, params)
        order = _option_orders(template, rng)
        outcome = compute_outcome(template, params, answers)
        variant = Variant(template.slug, seed, params, answers, common, order, outcome, keys)
    # Its texts are not rendered here: the gate renders them itself, and reports what fails.
    return dataclasses.replace(variant, catalog=catalog_snapshot.snapshot(used))


def parameter_extremes(parameter: Parameter) -> tuple:
    """The values of a drawn parameter at the edges of what it can draw: every choice, a
    range's two ends (its last step), a loguniform's two ends (rounded as drawn)."""
    if parameter.kind == "choice":
        return tuple(parameter.values)
    if parameter.kind == "range":
        steps = int(math.floor((parameter.high - parameter.low) / parameter.step + 1e-9))
        ends = (parameter.low, parameter.low + steps * parameter.step)
        if all(isinstance(v, int) for v in (parameter.low, parameter.high, parameter.step)):
            return tuple(dict.fromkeys(int(v) for v in ends))
        return tuple(dict.fromkeys(float(f"{v:.12g}") for v in ends))
    if parameter.kind == "loguniform":
        ends = (parameter.low, parameter.high)
        return tuple(dict.fromkeys(float(f"{v:.{parameter.sig}g}") for v in ends))
    return ()


def catalog_digest(snapshot: Mapping[str, Any] | None) -> str:
    """A short hash of a stored snapshot ("live-<fingerprint>" without one), for cache keys."""
    return catalog_snapshot.digest(snapshot)


def restamp(template: Template, variant: Variant) -> Variant:
    """``variant`` moved to the live catalog: the same seed and drawn choices, with catalog
    entries, derived parameters, answers, common errors and outcome computed again from today's
    figures, and a fresh snapshot.  The one way an old variant takes corrected figures."""
    with catalog_snapshot.recording() as used:
        lookups = base_names()
        params = dict(variant.params)
        for name, (catalog, key) in variant.catalog_keys.items():
            params[name] = lookups[catalog](key)
        params = rederive_parameters(template, params)
        answers, common = compute_answers(template, params)
        order = _option_orders(template, None, kept=variant.option_order)
        outcome = variant.outcome
        if template.outcomes is not None:
            outcome = compute_outcome(template, params, answers)
        fresh = dataclasses.replace(
            variant,
            params=params,
            answers=answers,
            common_errors=common,
            option_order=order,
            outcome=outcome,
            catalog=None,
        )
        catalog_snapshot.keep(text_lookups(template, fresh))
    return dataclasses.replace(fresh, catalog=catalog_snapshot.snapshot(used))


def _touch_texts(template: Template, variant: Variant) -> None:
    """Render every text of the variant once, so the look-ups its prompt, options, hints,
    solution and feedback make are recorded in its snapshot too.  A text that fails to render
    is reported where it is shown, not here."""
    from quizzes.engine.render import render_everything

    try:
        render_everything(template, variant)
    except Exception:  # noqa: BLE001 - display reports a broken text; generation must not
        pass


def compute_answers(
    template: Template, params: Mapping[str, object]
) -> tuple[dict[str, Any], dict[str, dict[str, float]]]:
    """Every part's correct answer and common-error values, from a variant's parameters."""
    answers: dict[str, Any] = {}
    common: dict[str, dict[str, float]] = {}
    for part in template.parts:
        names = names_for(params, {u: answers[u] for u in part.uses})
        answers[part.id] = part_answer(template, part, names)
        specs = kinds.kind_for(part).common_errors(part)
        if specs:
            # None means "this slip cannot be told apart in this variant": skip it here.
            common[part.id] = {}
            for spec in specs:
                value = _eval(template, spec.value, names)
                if value is not None:
                    common[part.id][spec.code] = _as_float(
                        template, spec.value, value, "a common error"
                    )
    return answers, common


def compute_outcome(
    template: Template, params: Mapping[str, object], answers: Mapping[str, Any]
) -> str | None:
    """The variant's outcome category, or None when the template declares none."""
    if template.outcomes is None:
        return None
    return str(_eval(template, template.outcomes.category, names_for(params, answers)))


def rederive_parameters(template: Template, params: Mapping[str, object]) -> dict[str, object]:
    """The drawn parameters with every derived (``value:``) parameter computed again."""
    result = dict(params)
    for parameter in template.parameters:
        if parameter.kind == "value" and parameter.expr is not None:
            result[parameter.name] = _eval(template, parameter.expr, names_for(result))
    return result


def _eval(template: Template, expr: Expr, names: Mapping[str, object]) -> Any:
    return evaluate(expr.text, names, source=template.source, line=expr.line)


def _number(template: Template, expr: Expr, names: Mapping[str, object], what: str) -> float:
    return _as_float(template, expr, _eval(template, expr, names), what)


def _as_float(template: Template, expr: Expr, value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ExpressionError(
            template.source, expr.line, expr.text, f"{what} must be a number, not {value!r}"
        )
    return float(value)


def part_answer(template: Template, part: Part, names: Mapping[str, object]) -> Any:
    """The correct answer of ``part`` with ``names`` (which hold ``part_<id>`` for its uses)."""
    return kinds.kind_for(part).answer(template, part, names)


def _option_orders(template: Template, rng: random.Random | None, kept=None) -> dict:
    """Each part's option order: drawn from ``rng`` (only kinds with options draw), or, with
    ``kept`` (a variant's stored orders), the stored order where there is one."""
    order: dict[str, tuple[str, ...]] = {}
    for part in template.parts:
        kind = kinds.kind_for(part)
        stored = (kept or {}).get(part.id)
        ids = stored or kind.option_order(part, None if kept is not None else rng)
        if ids is not None:
            order[part.id] = tuple(ids)
    return order


def _draw_parameters(template: Template, rng: random.Random, deadline: float | None = None):
    failures: Counter[int] = Counter()
    for draw in range(template.max_tries):
        if deadline is not None and time.monotonic() > deadline:
            raise OverBudget(
                f"gave up after {draw:,} draws: the time budget ran out before the constraints "
                "were met; widen the parameter ranges or relax the constraints",
                source=template.source,
            )
        params: dict[str, Any] = {}
        keys: dict[str, tuple[str, str]] = {}
        # Only the accepted draw's catalog look-ups belong in the variant's snapshot.
        with catalog_snapshot.recording(propagate=False) as tried:
            for parameter in template.parameters:
                value, key = _draw(template, parameter, rng, params)
                params[parameter.name] = value
                if key is not None:
                    keys[parameter.name] = key
            names = names_for(params)
            failed = next(
                (i for i, c in enumerate(template.constraints) if not _eval(template, c, names)),
                None,
            )
        if failed is None:
            catalog_snapshot.keep(tried)
            return params, keys
        failures[failed] += 1
    worst, count = failures.most_common(1)[0]
    constraint = template.constraints[worst]
    raise GenerationError(
        f"constraint '{constraint.text}' failed in {count} of {template.max_tries} draws and "
        "no draw met every constraint; widen the parameter ranges or relax the constraint",
        source=template.source,
        line=constraint.line,
    )


def _draw(
    template: Template, p: Parameter, rng: random.Random, params: dict[str, Any]
) -> tuple[Any, tuple[str, str] | None]:
    """One parameter's value and, for a catalog entry, its (catalog, key)."""
    if p.kind == "choice":
        value = p.values[rng.randrange(len(p.values))]
        if p.catalog:
            return base_names()[p.catalog](value), (p.catalog, value)
        return value, None
    if p.kind == "range":
        steps = int(math.floor((p.high - p.low) / p.step + 1e-9))
        value = p.low + rng.randint(0, steps) * p.step
        if all(isinstance(v, int) for v in (p.low, p.high, p.step)):
            return int(value), None
        return float(f"{value:.12g}"), None
    if p.kind == "loguniform":
        value = math.exp(rng.uniform(math.log(p.low), math.log(p.high)))
        return float(f"{value:.{p.sig}g}"), None
    value = _eval(template, p.expr, names_for(params))
    if isinstance(value, tuple):
        value = list(value)
    return value, _catalog_key(value)


def _catalog_key(value: Any) -> tuple[str, str] | None:
    """(catalog, key) of a derived catalog entry, so it can be stored by key."""
    if not is_catalog_object(value):
        return None
    lookups = base_names()
    for catalog in CATALOGS:
        for key in (getattr(value, "key", None), getattr(value, "name", None)):
            if not isinstance(key, str):
                continue
            try:
                if lookups[catalog](key) == value:
                    return catalog, key
            except Exception:  # noqa: BLE001 - not this catalog
                continue
    return None
