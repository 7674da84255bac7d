"""The framework definition (its published canonical JSON), read into what the computation needs.

The verifier holds no copy of the framework: weights, scales, caps, bands and thresholds all come from the definition
the caller supplies, whose SHA-256 must be the package's ``framework.sha256``.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from .canonical import canonical_sha256


class FrameworkError(ValueError):
    """The definition cannot be read or uses something this verifier does not implement."""


#: The derived quantities this verifier implements, by name, with the formula the definition must state for them.
DERIVED_FORMULAS = {"spread_bps": "(provider.yield_max - benchmark_rate_pct) x 100"}

CONDITION_OPS = ("eq", "in", "lt", "gt", "all", "stale")


class Criterion(NamedTuple):
    id: str
    module_id: str
    label: str
    input_key: str
    weight: int
    input_type: str
    minimum: Optional[Decimal]
    maximum: Optional[Decimal]
    #: "linear" or "table".
    kind: str
    #: linear: [(x, points)]; table: [(value, points)].
    anchors: List[Tuple[Decimal, Decimal]]
    entries: List[Tuple[Any, Decimal]]
    #: linear: "input" or the name of a derived quantity.
    on: str


class Module(NamedTuple):
    id: str
    label: str
    weight: int


class HardCap(NamedTuple):
    id: str
    label: str
    cap: Decimal
    condition: Dict[str, Any]
    condition_text: str


class Band(NamedTuple):
    band: str
    minimum: Decimal


class Framework(NamedTuple):
    definition: Dict[str, Any]
    sha256: str
    version: str
    framework_version: str
    criteria: List[Criterion]
    modules: List[Module]
    hard_caps: List[HardCap]
    bands: List[Band]
    points_places: int
    freshness_places: int
    confidence_places: int
    final_score_places: int
    full_until_days: int
    decay_until_days: int
    decay: Decimal
    stale_factor: Decimal
    floor_min_points: Decimal
    floor_min_points_text: str
    max_ceiling_factors: int
    max_floor_factors: int
    min_confidence: Decimal
    min_confidence_text: str


def _get(obj: Any, path: str) -> Any:
    value = obj
    for name in path.split("."):
        if not isinstance(value, dict) or name not in value:
            raise FrameworkError(f"the framework definition has no {path}")
        value = value[name]
    return value


def _decimal(text: Any, where: str) -> Decimal:
    if not isinstance(text, str):
        raise FrameworkError(f"{where} is not decimal text")
    try:
        return Decimal(text)
    except InvalidOperation:
        raise FrameworkError(f"{where} is not decimal text: {text}") from None


def _integer(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)) or value != int(value):
        raise FrameworkError(f"{where} is not an integer")
    return int(value)


def _criterion(c: Dict[str, Any]) -> Criterion:
    where = f"criterion {c.get('id')}"
    source = _get(c, "input")
    scale = _get(c, "scale")
    kind = _get(scale, "kind")
    anchors: List[Tuple[Decimal, Decimal]] = []
    entries: List[Tuple[Any, Decimal]] = []
    on = "input"
    if kind == "linear":
        anchors = [(_decimal(x, where), _decimal(p, where)) for x, p in _get(scale, "anchors")]
        on = _get(scale, "on")
        if not anchors or any(a[0] >= b[0] for a, b in zip(anchors, anchors[1:])):
            raise FrameworkError(f"{where}: the anchors are not sorted by x")
    elif kind == "table":
        entries = [(value, _decimal(p, where)) for value, p in _get(scale, "entries")]
    else:
        raise FrameworkError(f"{where}: unknown scale kind {kind!r}")
    if source.get("type") not in ("decimal", "integer", "enum", "boolean"):
        raise FrameworkError(f"{where}: unknown input type {source.get('type')!r}")
    return Criterion(
        id=_get(c, "id"),
        module_id=_get(c, "module_id"),
        label=_get(c, "label"),
        input_key=_get(c, "input_key"),
        weight=_integer(_get(c, "weight"), where),
        input_type=source["type"],
        minimum=_decimal(source["min"], where) if "min" in source else None,
        maximum=_decimal(source["max"], where) if "max" in source else None,
        kind=kind,
        anchors=anchors,
        entries=entries,
        on=on,
    )


def _check_condition(condition: Any, where: str) -> None:
    op = condition.get("op") if isinstance(condition, dict) else None
    if op not in CONDITION_OPS:
        raise FrameworkError(f"{where}: unknown condition {op!r}")
    for part in condition.get("of", []) if op == "all" else []:
        _check_condition(part, where)


def read_framework(definition: Any) -> Framework:
    """Reads a parsed definition; raises FrameworkError when it is not one this verifier can apply."""
    if not isinstance(definition, dict):
        raise FrameworkError("the framework definition is not a JSON object")
    criteria = [_criterion(c) for c in _get(definition, "criteria")]
    for derived in _get(definition, "derived"):
        name = _get(derived, "name")
        if DERIVED_FORMULAS.get(name) != _get(derived, "formula"):
            raise FrameworkError(f"the derived quantity {name} ({derived.get('formula')}) is not one this verifier implements")
    caps = []
    for cap in _get(definition, "hard_caps"):
        _check_condition(_get(cap, "condition"), f"hard cap {cap.get('id')}")
        caps.append(
            HardCap(
                id=_get(cap, "id"),
                label=_get(cap, "label"),
                cap=_decimal(_get(cap, "cap"), "a cap"),
                condition=cap["condition"],
                condition_text=_get(cap, "condition_text"),
            )
        )
    arithmetic = _get(definition, "arithmetic")
    if arithmetic.get("precision") != 40 or arithmetic.get("rounding") != "ROUND_HALF_EVEN":
        raise FrameworkError("the framework's arithmetic is not 40 digits ROUND_HALF_EVEN")
    return Framework(
        definition=definition,
        sha256=canonical_sha256(definition),
        version=_get(definition, "version"),
        framework_version=_get(definition, "framework_version"),
        criteria=criteria,
        modules=[
            Module(_get(m, "id"), _get(m, "label"), _integer(_get(m, "weight"), "a module weight"))
            for m in _get(definition, "modules")
        ],
        hard_caps=caps,
        bands=[Band(_get(b, "band"), _decimal(_get(b, "min"), "a band")) for b in _get(definition, "bands")],
        points_places=_integer(_get(arithmetic, "points_places"), "points_places"),
        freshness_places=_integer(_get(arithmetic, "freshness_places"), "freshness_places"),
        confidence_places=_integer(_get(arithmetic, "confidence_places"), "confidence_places"),
        final_score_places=_integer(_get(arithmetic, "final_score_places"), "final_score_places"),
        full_until_days=_integer(_get(definition, "freshness.full_until_days"), "full_until_days"),
        decay_until_days=_integer(_get(definition, "freshness.decay_until_days"), "decay_until_days"),
        decay=_decimal(_get(definition, "freshness.decay"), "freshness.decay"),
        stale_factor=_decimal(_get(definition, "freshness.stale_factor"), "freshness.stale_factor"),
        floor_min_points=_decimal(_get(definition, "decision.floor_min_points"), "floor_min_points"),
        floor_min_points_text=_get(definition, "decision.floor_min_points"),
        max_ceiling_factors=_integer(_get(definition, "decision.max_ceiling_factors"), "max_ceiling_factors"),
        max_floor_factors=_integer(_get(definition, "decision.max_floor_factors"), "max_floor_factors"),
        min_confidence=_decimal(_get(definition, "publication.min_confidence"), "min_confidence"),
        min_confidence_text=_get(definition, "publication.min_confidence"),
    )
