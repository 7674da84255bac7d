"""DCRF v1.0 recomputed from the specification: a valid inputs document and a framework give the whole package.

Every operation runs in a decimal context of 40 significant digits, ROUND_HALF_EVEN (section 1); the named roundings
``r4`` and ``r2`` are half-even roundings to 4 and 2 places; figures are written as fixed-place text (section 10).
"""

from __future__ import annotations

import datetime
from decimal import ROUND_HALF_EVEN, Context, Decimal, localcontext
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from . import texts
from .canonical import canonical_bytes, canonical_sha256, sha256_hex
from .framework import Criterion, Framework, HardCap
from .inputs import calendar_date

PACKAGE_FORMAT = "svc.computation-package/1"
#: Places of the figures the framework data does not name (section 10): contributions, module scores, the uncapped
#: and capped scores 6; caps, point impacts and points to next band 2.
CONTRIBUTION_PLACES = 6
SCORE_PLACES = 6
IMPACT_PLACES = 2

ARITHMETIC = Context(prec=40, rounding=ROUND_HALF_EVEN)
HUNDRED = Decimal(100)


def rounded(value: Decimal, places: int) -> Decimal:
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN)


class Scored(NamedTuple):
    """One criterion, scored."""

    criterion: Criterion
    item: Optional[Dict[str, Any]]
    points: Decimal
    contribution: Decimal
    age_days: Optional[int]
    freshness: Decimal
    #: (name, value) of the derived quantity its scale reads, when the input is present.
    derived: Optional[Tuple[str, Decimal]]

    @property
    def missing(self) -> bool:
        return self.item is None

    @property
    def value(self) -> Any:
        return None if self.item is None else self.item["value"]


class CapOutcome(NamedTuple):
    cap: HardCap
    fired: bool
    binding: bool
    impact: Decimal
    operands: List[Dict[str, Any]]


def linear_points(anchors: List[Tuple[Decimal, Decimal]], x: Decimal, places: int) -> Decimal:
    """Section 3: clamped to the end anchors, an anchor's own points at an anchor, else the interpolation rounded."""
    if x <= anchors[0][0]:
        return anchors[0][1]
    if x >= anchors[-1][0]:
        return anchors[-1][1]
    for (x0, p0), (x1, p1) in zip(anchors, anchors[1:]):
        if x == x1:
            return p1
        if x0 < x < x1:
            product = (x - x0) * (p1 - p0)
            return rounded(p0 + product / (x1 - x0), places)
    raise AssertionError("the anchors cover every x")


def table_points(entries: List[Tuple[Any, Decimal]], value: Any) -> Decimal:
    for entry, points in entries:
        if type(entry) is type(value) and entry == value:
            return points
    raise ValueError(f"{value!r} has no points in the table")


def derived_value(name: str, document: Dict[str, Any], value: Decimal) -> Decimal:
    """The derived quantities of framework.DERIVED_FORMULAS; only spread_bps exists."""
    if name == "spread_bps":
        return (document["provider"]["yield_max"] - value) * HUNDRED
    raise ValueError(f"unknown derived quantity {name}")


def freshness(fw: Framework, age_days: Optional[int]) -> Decimal:
    """Section 7: 0 when missing, 1 while fresh, a linear decay (rounded), then the stale factor."""
    if age_days is None:
        return Decimal(0)
    if age_days <= fw.full_until_days:
        return Decimal(1)
    if age_days <= fw.decay_until_days:
        product = fw.decay * (age_days - fw.full_until_days)
        return rounded(1 - product / (fw.decay_until_days - fw.full_until_days), fw.freshness_places)
    return fw.stale_factor


def score_criterion(fw: Framework, c: Criterion, document: Dict[str, Any], evaluation: datetime.date) -> Scored:
    item = document["inputs"].get(c.input_key)
    if item is None:
        return Scored(c, None, Decimal(0), Decimal(0), None, Decimal(0), None)
    age = (evaluation - calendar_date(item["as_of"])).days  # type: ignore[operator]
    derived = None
    if c.kind == "table":
        points = table_points(c.entries, item["value"])
    elif c.on == "input":
        points = linear_points(c.anchors, item["value"], fw.points_places)
    else:
        derived = (c.on, derived_value(c.on, document, item["value"]))
        points = linear_points(c.anchors, derived[1], fw.points_places)
    contribution = c.weight * points / HUNDRED
    return Scored(c, item, points, contribution, age, freshness(fw, age), derived)


def _same(value: Any, wanted: Any) -> bool:
    if isinstance(value, Decimal) and isinstance(wanted, str):
        return value == Decimal(wanted)
    return type(value) is type(wanted) and value == wanted


class Operand(NamedTuple):
    """What a condition reads: an input's value as in the inputs, or a derived quantity (written as exact text)."""

    value: Any
    derived: bool

    @property
    def shown(self) -> Any:
        return texts.exact(self.value) if self.derived and self.value is not None else self.value


def evaluate(
    condition: Dict[str, Any], reads: Dict[str, Operand], ages: Dict[str, Optional[int]]
) -> Tuple[bool, List[Dict[str, Any]]]:
    """Whether a cap's condition holds, and its operands in the order of the condition (section 5)."""
    op = condition["op"]
    if op == "all":
        holds, operands = True, []
        for part in condition["of"]:
            part_holds, part_operands = evaluate(part, reads, ages)
            holds = holds and part_holds
            operands += part_operands
        return holds, operands
    if op == "stale":
        listed = [(criterion_id, ages.get(criterion_id)) for criterion_id in condition["criteria"]]
        operands = [{"operand": f"{cid}.age_days", "value": age} for cid, age in listed]
        return any(age is not None and age > condition["age_days_over"] for _, age in listed), operands
    name = condition["operand"]
    read = reads.get(name, Operand(None, False))
    operands = [{"operand": name, "value": read.shown}]
    value = read.value
    if value is None:
        return False, operands
    if op == "eq":
        return _same(value, condition["value"]), operands
    if op == "in":
        return any(_same(value, wanted) for wanted in condition["values"]), operands
    limit = Decimal(condition["value"])
    return (value < limit if op == "lt" else value > limit), operands


def cap_outcomes(fw: Framework, scored: List[Scored], uncapped: Decimal) -> List[CapOutcome]:
    """Every cap in table order: fired, binding (its cap below the unrounded uncapped score), impact."""
    reads = {s.criterion.input_key: Operand(s.value, False) for s in scored}
    for s in scored:
        if s.criterion.kind == "linear" and s.criterion.on != "input":
            reads[s.criterion.on] = Operand(None if s.derived is None else s.derived[1], True)
    ages = {s.criterion.id: s.age_days for s in scored}
    outcomes = []
    for cap in fw.hard_caps:
        fired, operands = evaluate(cap.condition, reads, ages)
        binding = fired and cap.cap < uncapped
        impact = rounded(cap.cap - uncapped, IMPACT_PLACES) if binding else Decimal(0)
        outcomes.append(CapOutcome(cap, fired, binding, impact, operands))
    return outcomes


def band_of(fw: Framework, final_score: Decimal) -> Tuple[str, Optional[Tuple[str, Decimal]]]:
    """The first band whose lower bound the score meets, and the band before it (the next better one) with its bound."""
    for index, band in enumerate(fw.bands):
        if final_score >= band.minimum or index == len(fw.bands) - 1:
            better = fw.bands[index - 1] if index > 0 else None
            return band.band, None if better is None else (better.band, better.minimum)
    raise AssertionError("a framework has bands")


def detail(s: Scored, points_places: int) -> str:
    """Section 12: the detail of a ceiling or floor factor."""
    c = s.criterion
    if s.missing:
        return texts.fill(texts.DETAIL_MISSING, criterion_label=c.label, input_key=c.input_key)
    points = texts.fixed(s.points, points_places)
    value = texts.input_text(s.value)
    if s.derived is not None:
        template = getattr(texts, "DETAIL_DERIVED_" + s.derived[0].upper())
        return texts.fill(
            template, criterion_label=c.label, spread_bps=texts.exact(s.derived[1]), input_value=value, points=points
        )
    return texts.fill(texts.DETAIL, criterion_label=c.label, input_value=value, points=points)


def _factor(s: Scored, impact: Decimal, points_places: int) -> Dict[str, Any]:
    return {
        "criterion_id": s.criterion.id,
        "criterion_label": s.criterion.label,
        "point_impact": texts.fixed(impact, IMPACT_PLACES),
        "detail": detail(s, points_places),
    }


def ceiling_factors(fw: Framework, scored: List[Scored]) -> List[Scored]:
    """The largest shortfalls (> 0), largest first, ties in framework order (a stable sort keeps it)."""
    shortfall = {s.criterion.id: s.criterion.weight * (HUNDRED - s.points) / HUNDRED for s in scored}
    candidates = [s for s in scored if shortfall[s.criterion.id] > 0]
    return sorted(candidates, key=lambda s: -shortfall[s.criterion.id])[: fw.max_ceiling_factors]


def floor_factors(fw: Framework, scored: List[Scored]) -> List[Scored]:
    candidates = [s for s in scored if not s.missing and s.points >= fw.floor_min_points]
    return sorted(candidates, key=lambda s: -s.contribution)[: fw.max_floor_factors]


def module_text(fw: Framework, label: str, score: Decimal, weight: int, members: List[Scored]) -> str:
    present = [s for s in members if not s.missing]
    strongest = weakest = missing = ""
    if present:
        best = max(present, key=lambda s: s.points)  # max and min keep the first of equals
        worst = min(present, key=lambda s: s.points)
        places = fw.points_places
        strongest = texts.fill(texts.MODULE_STRONGEST, criterion_label=best.criterion.label, points=texts.fixed(best.points, places))
        if worst is not best:
            weakest = texts.fill(texts.MODULE_WEAKEST, criterion_label=worst.criterion.label, points=texts.fixed(worst.points, places))
    absent = [s.criterion.label for s in members if s.missing]
    if absent:
        missing = texts.fill(texts.MODULE_MISSING, missing_labels=texts.listed(absent))
    return texts.fill(
        texts.MODULE,
        module_label=label,
        module_score=texts.fixed(score, 2),
        module_max=str(weight),
        strongest=strongest,
        weakest=weakest,
        missing=missing,
    )


def reproduce(document: Dict[str, Any], fw: Framework, engine: Any) -> Dict[str, Any]:
    """The computation package of a VALID inputs document (inputs.document_problems empty) under ``fw``."""
    with localcontext(ARITHMETIC):
        return _package(document, fw, engine)


def _package(document: Dict[str, Any], fw: Framework, engine: Any) -> Dict[str, Any]:
    provider = dict(document["provider"], id=document["provider"]["id"].lower())
    document = dict(document, provider=provider)
    evaluation_date = document["evaluation_date"]
    evaluation = calendar_date(evaluation_date)
    assert evaluation is not None
    scored = [score_criterion(fw, c, document, evaluation) for c in fw.criteria]

    uncapped = sum((s.contribution for s in scored), Decimal(0))
    caps = cap_outcomes(fw, scored, uncapped)
    capped = min([uncapped] + [o.cap.cap for o in caps if o.fired])
    final_score = rounded(capped, fw.final_score_places)
    risk_band, better = band_of(fw, final_score)
    to_next = None if better is None else better[1] - final_score
    weighted = sum((s.criterion.weight * s.freshness for s in scored), Decimal(0))
    confidence = rounded(weighted / HUNDRED, fw.confidence_places)
    publishable = confidence >= fw.min_confidence

    inputs_sha256 = canonical_sha256(document)
    ri_id = "ri_" + canonical_sha256(
        {"evaluation_date": evaluation_date, "framework_sha256": fw.sha256, "inputs_sha256": inputs_sha256}
    )[:24]

    P, F = fw.points_places, fw.freshness_places
    ceilings = ceiling_factors(fw, scored)
    floors = floor_factors(fw, scored)
    binding = [o for o in caps if o.binding]
    fired = [o for o in caps if o.fired]
    summary = texts.fill(
        texts.SUMMARY,
        provider_name=provider["name"],
        final_score=texts.fixed(final_score, fw.final_score_places),
        risk_band=risk_band,
        where=texts.SUMMARY_WHERE_LOWEST
        if better is None
        else texts.fill(
            texts.SUMMARY_WHERE_NEXT, points_to_next_band=texts.fixed(to_next, IMPACT_PLACES), next_band=better[0]  # type: ignore[arg-type]
        ),
        framework_version=fw.framework_version,
        anchored=texts.fill(texts.SUMMARY_ANCHORED, floor_labels=texts.listed([s.criterion.label for s in floors]))
        if floors
        else texts.fill(texts.SUMMARY_ANCHORED_NONE, floor_min_points=fw.floor_min_points_text),
        held=texts.fill(texts.SUMMARY_HELD, ceiling_labels=texts.listed([s.criterion.label for s in ceilings]))
        if ceilings
        else texts.SUMMARY_HELD_NONE,
        capped=texts.fill(
            texts.SUMMARY_CAPPED,
            lowest_cap=texts.fixed(min(o.cap.cap for o in binding), IMPACT_PLACES),
            binding_caps=texts.listed(
                [texts.fill(texts.SUMMARY_CAP_NAMED, cap_id=o.cap.id, cap_label=o.cap.label) for o in binding]
            ),
        )
        if binding
        else texts.SUMMARY_CAPPED_NONE,
    )
    decision: Dict[str, Any] = {
        "summary": summary,
        "ceiling_factors": [
            _factor(s, -rounded(s.criterion.weight * (HUNDRED - s.points) / HUNDRED, IMPACT_PLACES), P) for s in ceilings
        ],
        "floor_factors": [_factor(s, rounded(s.contribution, IMPACT_PLACES), P) for s in floors],
        "hard_caps_fired": [
            {
                "cap_id": o.cap.id,
                "label": o.cap.label,
                "cap": texts.fixed(o.cap.cap, IMPACT_PLACES),
                "binding": o.binding,
                "point_impact": texts.fixed(o.impact, IMPACT_PLACES),
            }
            for o in fired
        ],
    }
    if better is not None:
        decision["next_band"] = better[0]
        decision["points_to_next_band"] = texts.fixed(to_next, IMPACT_PLACES)  # type: ignore[arg-type]

    present = [s for s in scored if not s.missing]
    overview = texts.fill(
        texts.OVERVIEW,
        framework_version=fw.framework_version,
        evaluation_date=evaluation_date,
        final_score=texts.fixed(final_score, fw.final_score_places),
        risk_band=risk_band,
        uncapped=texts.fixed(uncapped, 4),
        confidence=texts.fixed(confidence, fw.confidence_places),
        present=str(len(present)),
        criteria=str(len(scored)),
        stale=str(sum(1 for s in present if s.age_days is not None and s.age_days > fw.full_until_days)),
        full_until_days=str(fw.full_until_days),
        publication=texts.OVERVIEW_PUBLISHABLE
        if publishable
        else texts.fill(texts.OVERVIEW_NOT_PUBLISHABLE, min_confidence=fw.min_confidence_text),
    )
    modules = []
    for module in fw.modules:
        members = [s for s in scored if s.criterion.module_id == module.id]
        score = sum((s.contribution for s in members), Decimal(0))
        modules.append(
            {
                "module_id": module.id,
                "label": module.label,
                "score": texts.fixed(score, SCORE_PLACES),
                "max": module.weight,
                "text": module_text(fw, module.label, score, module.weight, members),
            }
        )

    result = {
        "risk_indicator_id": ri_id,
        "id": provider["id"],
        "provider_id": provider["id"],
        "name": provider["name"],
        "planner_type": provider["planner_type"],
        "provider_subtype": provider["provider_subtype"],
        "yield_min": provider["yield_min"],
        "yield_max": provider["yield_max"],
        "final_score": texts.fixed(final_score, fw.final_score_places),
        "risk_band": risk_band,
        "confidence": texts.fixed(confidence, fw.confidence_places),
        "publishable": publishable,
        "framework_version": fw.framework_version,
        "scored_at": evaluation_date + "T00:00:00Z",
        "criterion_scores": [
            {
                "criterion_id": s.criterion.id,
                "criterion_label": s.criterion.label,
                "module_id": s.criterion.module_id,
                "weight": s.criterion.weight,
                "input_key": s.criterion.input_key,
                "input_value": s.value,
                "points": texts.fixed(s.points, P),
                "contribution": texts.fixed(s.contribution, CONTRIBUTION_PLACES),
                "as_of": None if s.item is None else s.item["as_of"],
                "age_days": s.age_days,
                "freshness": texts.fixed(s.freshness, F),
                "missing": s.missing,
            }
            for s in scored
        ],
        "svc_decision_object": decision,
        "score_commentary": {"overview": overview, "modules": modules},
    }
    steps = {
        "criteria": [
            {
                "criterion_id": s.criterion.id,
                "input_key": s.criterion.input_key,
                "input_value": s.value,
                "weight": s.criterion.weight,
                "points": texts.fixed(s.points, P),
                "contribution": texts.fixed(s.contribution, CONTRIBUTION_PLACES),
                "as_of": None if s.item is None else s.item["as_of"],
                "age_days": s.age_days,
                "freshness": texts.fixed(s.freshness, F),
                "missing": s.missing,
                "derived": None if s.derived is None else {"name": s.derived[0], "value": texts.exact(s.derived[1])},
            }
            for s in scored
        ],
        "uncapped": texts.fixed(uncapped, SCORE_PLACES),
        "hard_caps": [
            {
                "cap_id": o.cap.id,
                "label": o.cap.label,
                "condition": o.cap.condition_text,
                "cap": texts.fixed(o.cap.cap, IMPACT_PLACES),
                "operands": o.operands,
                "fired": o.fired,
                "binding": o.binding,
                "point_impact": texts.fixed(o.impact, IMPACT_PLACES),
            }
            for o in caps
        ],
        "capped": texts.fixed(capped, SCORE_PLACES),
        "final_score": texts.fixed(final_score, fw.final_score_places),
        "risk_band": risk_band,
        "next_band": None if better is None else better[0],
        "points_to_next_band": None if better is None else texts.fixed(to_next, IMPACT_PLACES),  # type: ignore[arg-type]
        "confidence": texts.fixed(confidence, fw.confidence_places),
        "publishable": publishable,
    }
    return {
        "package_format": PACKAGE_FORMAT,
        "engine": engine,
        "framework": {"framework_version": fw.framework_version, "version": fw.version, "sha256": fw.sha256},
        "inputs": document,
        "inputs_sha256": inputs_sha256,
        "evaluation_date": evaluation_date,
        "risk_indicator_id": ri_id,
        "steps": steps,
        "result": result,
        "result_sha256": sha256_hex(canonical_bytes(result)),
    }
