"""The shapes of the API's answers, as TypedDicts: the JSON arrives as plain dicts and lists, typed for checkers.

They follow the contract in ``packages/contracts`` field for field. Written with ``typing`` generics (not ``list[...]``
or ``X | None``) because TypedDict evaluates its annotations at run time on Python 3.8.
"""

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

PlannerType = Literal["btc", "fiat", "stablecoin"]
RiskBand = Literal["LOW", "MEDIUM", "ELEVATED", "HIGH", "SEVERE"]
Tier = Literal["FREE", "PROFESSIONAL", "ENTERPRISE", "CUSTOM"]
#: The statuses of an upcoming issuance, which the list's ``status`` filter takes.
IssuanceStatus = Literal["ANNOUNCED", "PRICING"]
#: Every status an issuance has: the upcoming ones, and PRICED or CANCELLED once closed.
IssuanceRecordStatus = Literal["ANNOUNCED", "PRICING", "PRICED", "CANCELLED"]
IssuanceType = Literal["preferred_share", "bond"]
ChangeType = Literal["NEW", "SCORE_CHANGE", "BAND_CHANGE", "WITHDRAWN"]
MatchKind = Literal["exact", "prefix", "word_prefix", "substring"]
MemoFormat = Literal["md", "html"]
EvidenceReason = Literal[
    "DECAY_STARTS", "EVIDENCE_STALE", "CAP_FIRES", "SCORE_CHANGES", "BAND_CHANGES", "NOT_PUBLISHABLE"
]
WebhookEventType = Literal[
    "risk_indicator.published",
    "risk_indicator.band_changed",
    "risk_indicator.withdrawn",
    "issuance.updated",
    "methodology.published",
]
WebhookStatus = Literal["active", "disabled"]
DeliveryStatus = Literal["pending", "delivered", "failed", "cancelled"]
InputValue = Optional[Union[str, float, bool]]

# ---- errors ----


class FieldProblem(TypedDict):
    path: str
    message: str


class _ProblemFields(TypedDict):
    type: str
    title: str
    status: int
    detail: str
    instance: str
    code: str
    request_id: str


class Problem(_ProblemFields, total=False):
    """RFC 9457 problem details, as every error answer carries them."""

    errors: List[FieldProblem]
    required_tier: str
    retry_after_seconds: int


# ---- scores ----


class CriterionScore(TypedDict):
    criterion_id: str
    criterion_label: str
    module_id: str
    weight: int
    input_key: str
    input_value: InputValue
    points: float
    contribution: float
    as_of: Optional[str]
    age_days: Optional[int]
    freshness: float
    missing: bool


class DecisionFactor(TypedDict):
    criterion_id: str
    criterion_label: str
    point_impact: float
    detail: str


class HardCapFired(TypedDict):
    cap_id: str
    label: str
    cap: float
    binding: bool
    point_impact: float


class _DecisionObjectFields(TypedDict):
    summary: str
    ceiling_factors: List[DecisionFactor]
    floor_factors: List[DecisionFactor]
    hard_caps_fired: List[HardCapFired]


class DecisionObject(_DecisionObjectFields, total=False):
    """``next_band`` and ``points_to_next_band`` are absent for LOW."""

    next_band: RiskBand
    points_to_next_band: float


class ModuleCommentary(TypedDict):
    module_id: str
    label: str
    score: float
    max: int
    text: str


class ScoreCommentary(TypedDict):
    overview: str
    modules: List[ModuleCommentary]


Outlook = Literal["POSITIVE", "STABLE", "NEGATIVE", "DEVELOPING"]
WatchDirection = Literal["POSITIVE", "NEGATIVE", "DEVELOPING"]
RatingActionType = str
"""NEW, UPGRADE, DOWNGRADE, AFFIRM, WITHDRAW, REINSTATE, WATCH_PLACED, WATCH_REMOVED, OUTLOOK_CHANGED: an open set,
so a newer server may send a type this client does not name."""


class Watch(TypedDict):
    """A rating under review: which way it leans, since when (UTC timestamp), and the date it is to be reviewed by."""

    direction: WatchDirection
    since: str
    review_by: str


class _Headline(TypedDict):
    id: str
    name: str
    planner_type: PlannerType
    provider_subtype: str
    yield_min: float
    yield_max: float
    final_score: float
    risk_band: RiskBand
    scored_at: str


class PublicScore(_Headline):
    outlook: Outlook
    """STABLE until an approved rating action sets another."""
    watch: Optional[Watch]


class _PublicScoresPage(TypedDict, total=False):
    next_cursor: Optional[str]
    """On a page (``limit`` or ``cursor`` given): the next page's cursor, None on the last. Absent otherwise."""


class PublicScoresResponse(_PublicScoresPage):
    data: List[PublicScore]
    limitations_disclosure: str
    cached: bool


class HypotheticalIndicator(_Headline):
    """An indicator the engine computed and nobody published (what-if)."""

    provider_id: str
    confidence: float
    publishable: bool
    framework_version: str
    criterion_scores: List[CriterionScore]
    svc_decision_object: DecisionObject
    score_commentary: ScoreCommentary


class NextBandStep(TypedDict):
    """The smallest change of one input alone that reaches the next band, or why none can."""

    criterion_id: str
    input_key: str
    label: str
    current_value: InputValue
    suggested_value: InputValue
    suggested_as_of: Optional[str]
    resulting_score: Optional[float]
    resulting_band: Optional[RiskBand]
    reachable: bool
    reason: Optional[str]


class PathToNextBand(TypedDict):
    """``steps`` has one entry per criterion; it is empty in the best band (LOW), where ``summary`` says so once."""

    current_score: float
    current_band: RiskBand
    next_band: Optional[RiskBand]
    next_band_min_score: Optional[float]
    steps: List[NextBandStep]
    summary: str


class RiskIndicator(HypotheticalIndicator):
    """A published Risk Indicator with its full breakdown (PROFESSIONAL and above)."""

    risk_indicator_id: str
    score_verified_at: str
    published_at: str
    outlook: Outlook
    watch: Optional[Watch]
    path_to_next_band: PathToNextBand
    signature: Optional[Dict[str, str]]
    """The publication's signature: ``kid``, ``value`` and ``statement_sha256`` (None until it is signed)."""
    limitations_disclosure: str


class ScoresListResponse(TypedDict):
    data: List[RiskIndicator]
    framework_version: str
    limitations_disclosure: str
    next_cursor: Optional[str]


class HistoryWithdrawal(TypedDict):
    """A withdrawal in a provider's history: an entry of its own, right after the publication it withdrew."""

    entry_type: Literal["withdrawal"]
    provider_id: str
    withdrawn_at: str
    withdrawn_risk_indicator_id: str
    previous_score: float
    previous_band: RiskBand
    framework_version: str
    reason: Optional[str]


class HistoryPublication(RiskIndicator):
    """A publication in a provider's history: the Risk Indicator as ``score()`` reads it, with its kind."""

    entry_type: Literal["publication"]


#: One entry of a provider's history, named by ``entry_type``: a publication or a withdrawal (see ``is_withdrawal``).
HistoryEntry = Union[HistoryPublication, HistoryWithdrawal]


def is_withdrawal(entry: Any) -> bool:
    """Whether a history entry is a withdrawal rather than a published Risk Indicator."""
    return isinstance(entry, dict) and entry.get("entry_type") == "withdrawal"


class ScoreHistoryResponse(TypedDict):
    provider_id: str
    #: Publications (``entry_type == "publication"``) and withdrawals (``entry_type == "withdrawal"``), newest first.
    data: List[HistoryEntry]
    next_cursor: Optional[str]


# ---- methodology, computation, issuances, status, change feed, coverage requests ----


class SignOff(TypedDict):
    role: Literal["chief_risk_officer"]
    signed_off_by: str
    signed_off_on: str


class MethodologyResponse(TypedDict):
    framework_version: str
    version: str
    effective_date: str
    status: Literal["approved", "draft"]
    sign_off: Optional[SignOff]
    framework_sha256: str
    #: The framework as data: modules, criteria, scales, hard caps, bands, rounding.
    definition: Dict[str, Any]


class ComputationEngine(TypedDict):
    name: str
    version: str


class ComputationFramework(TypedDict):
    framework_version: str
    version: str
    sha256: str


class ComputationPackage(TypedDict):
    """Everything needed to reproduce a Risk Indicator; decimals are fixed-place strings."""

    package_format: Literal["svc.computation-package/1"]
    engine: ComputationEngine
    framework: ComputationFramework
    inputs: Dict[str, Any]
    inputs_sha256: str
    evaluation_date: str
    risk_indicator_id: str
    steps: Dict[str, Any]
    result: Dict[str, Any]
    result_sha256: str


class Issuance(TypedDict):
    id: str
    issuer_name: str
    provider_id: Optional[str]
    instrument_name: str
    ticker: Optional[str]
    type: IssuanceType
    status: IssuanceRecordStatus
    currency: str
    target_amount: float
    coupon_rate_pct: Optional[float]
    coupon_frequency: Optional[Literal["monthly", "quarterly", "semiannual", "annual"]]
    expected_pricing_date: Optional[str]
    announced_at: str
    updated_at: str


class IssuancesResponse(TypedDict):
    data: List[Issuance]
    next_cursor: Optional[str]


class DataFreshness(TypedDict):
    latest_scored_at: Optional[str]
    age_seconds: Optional[int]


class StatusComponents(TypedDict):
    store: Literal["ok", "unavailable"]
    rate_limit_store: Literal["in_process", "ok", "degraded"]


class ReviewCadenceByPlannerType(TypedDict):
    btc: int
    fiat: int
    stablecoin: int


class ReviewCadenceDays(TypedDict):
    default: int
    by_planner_type: ReviewCadenceByPlannerType


class FreshnessPolicy(TypedDict):
    """The freshness policy the service runs under (its configuration)."""

    max_evaluation_age_days: int
    review_cadence_days: ReviewCadenceDays


class StatusResponse(TypedDict):
    status: Literal["ok", "degraded"]
    uptime_seconds: int
    started_at: str
    framework_version: str
    data_freshness: DataFreshness
    components: StatusComponents
    policy: FreshnessPolicy


class ChangelogEntry(TypedDict):
    id: str
    provider_id: str
    provider_name: str
    change_type: ChangeType
    previous_score: Optional[float]
    new_score: Optional[float]
    previous_band: Optional[RiskBand]
    new_band: Optional[RiskBand]
    framework_version: str
    risk_indicator_id: Optional[str]
    changed_at: str
    rating_action_id: Optional[str]


class ChangelogResponse(TypedDict):
    data: List[ChangelogEntry]
    next_cursor: Optional[str]


CoverageRequestStatusName = Literal["RECEIVED", "IN_REVIEW", "COVERED", "DECLINED"]


class CoverageRequestReceipt(TypedDict):
    request_id: str
    #: RECEIVED for a new request; a resubmission answers the status the request has now.
    status: CoverageRequestStatusName
    received_at: str


class CoverageRequestStatus(TypedDict):
    """What became of a coverage request: its status and the operator's note, nothing the requester sent."""

    request_id: str
    status: CoverageRequestStatusName
    resolution_note: Optional[str]


class SignedStatement(TypedDict):
    """A signed statement (of a publication, a withdrawal or a rating action): ``statement`` (its fields), ``signature`` (base64url Ed25519 over the RFC 8785
    bytes of ``statement``), ``kid`` (the key in signing_keys()), ``alg`` ("EdDSA") and ``statement_sha256``."""

    statement: Dict[str, Any]
    signature: str
    kid: str
    alg: str
    statement_sha256: str


class SigningKeys(TypedDict):
    """The JWKS of the statement keys (RFC 7517, RFC 8037): ``{"keys": [{kty, crv, x, kid, use, alg, status, ...}]}``."""

    keys: List[Dict[str, Any]]


# ---- analysis ----


class ProviderMatch(TypedDict):
    id: str
    name: str
    planner_type: PlannerType
    provider_subtype: str
    final_score: float
    risk_band: RiskBand
    scored_at: str
    match: MatchKind


class ProviderSearchResponse(TypedDict):
    query: str
    data: List[ProviderMatch]


class ComparedProvider(TypedDict):
    provider_id: str
    name: str
    final_score: float
    risk_band: RiskBand


class ScoreSpread(TypedDict):
    highest: str
    lowest: str
    spread: float


class ComparedModule(TypedDict):
    module_id: str
    label: str
    scores: List[float]
    spread: float


class ComparedCriterion(TypedDict):
    criterion_id: str
    criterion_label: str
    module_id: str
    weight: int
    points: List[float]
    contributions: List[float]
    spread: float
    best: List[str]


class Comparison(TypedDict):
    """Lists of scores and points are in the order of ``providers``."""

    providers: List[ComparedProvider]
    final_score: ScoreSpread
    modules: List[ComparedModule]
    criteria: List[ComparedCriterion]
    indicators: List[RiskIndicator]


class Holding(TypedDict):
    provider_id: str
    amount: float


class PortfolioHolding(TypedDict):
    provider_id: str
    name: str
    amount: float
    weight: float
    final_score: float
    risk_band: RiskBand
    contribution: float


class WeakHolding(TypedDict):
    provider_id: str
    name: str
    final_score: float
    risk_band: RiskBand
    weight: float


class Concentration(TypedDict):
    herfindahl_index: float
    effective_holdings: float
    largest_weight: float
    level: Literal["low", "moderate", "high"]


class BandExposure(TypedDict):
    risk_band: RiskBand
    amount: float
    weight: float
    holdings: int


class PortfolioScore(TypedDict):
    framework_version: str
    portfolio_score: float
    risk_band: RiskBand
    total_amount: float
    holdings: List[PortfolioHolding]
    weakest: List[WeakHolding]
    concentration: Concentration
    exposure_by_band: List[BandExposure]
    limitations_disclosure: str


class _InputOverrideFields(TypedDict):
    value: InputValue


class InputOverride(_InputOverrideFields, total=False):
    """A hypothetical input value with a new evidence date (YYYY-MM-DD)."""

    as_of: str


class WhatIfBase(TypedDict):
    risk_indicator_id: str
    final_score: float
    risk_band: RiskBand


class CriterionChange(TypedDict):
    criterion_id: str
    input_key: str
    value_before: InputValue
    value_after: InputValue
    points_before: float
    points_after: float
    points_delta: float


class WhatIfChanges(TypedDict):
    final_score_delta: float
    band_from: RiskBand
    band_to: RiskBand
    criteria: List[CriterionChange]


class WhatIfResponse(TypedDict):
    provider_id: str
    stored: Literal[False]
    base: WhatIfBase
    what_if: HypotheticalIndicator
    changes: WhatIfChanges
    limitations_disclosure: str


class EvidenceFigures(TypedDict):
    """An indicator's figures on one date, as the engine scores its approved inputs on that date."""

    date: str
    final_score: float
    risk_band: RiskBand
    confidence: float
    publishable: bool
    hard_caps_fired: List[str]
    #: Criteria in their linear freshness decay on this date: while not empty, confidence may fall until the next entry.
    decaying_criteria: List[str]


class EvidenceAgeing(TypedDict):
    criterion_id: str
    input_key: str
    as_of: str
    age_days: int
    freshness: float


class EvidenceScheduleEntry(EvidenceFigures):
    reason_codes: List[EvidenceReason]
    reason: str
    criteria: List[EvidenceAgeing]


#: The first band change of a schedule: its date, the band the day before (``from``, a Python keyword, hence this form)
#: and the band on that date.
BandChange = TypedDict("BandChange", {"date": str, "from": RiskBand, "to": RiskBand})


class EvidenceScheduleResponse(TypedDict):
    provider_id: str
    risk_indicator_id: str
    framework_version: str
    evaluation_date: str
    start_date: str
    end_date: str
    days: int
    current: EvidenceFigures
    entries: List[EvidenceScheduleEntry]
    first_band_change: Optional[BandChange]
    not_publishable_from: Optional[str]
    limitations_disclosure: str


# ---- webhooks ----


class WebhookEndpoint(TypedDict):
    id: str
    url: str
    events: List[WebhookEventType]
    description: Optional[str]
    status: WebhookStatus
    created_at: str
    disabled_at: Optional[str]
    disabled_reason: Optional[str]


class WebhooksListResponse(TypedDict):
    data: List[WebhookEndpoint]


class DeliveryAttempt(TypedDict):
    attempt: int
    started_at: str
    duration_ms: int
    status_code: Optional[int]
    error: Optional[str]
    response_excerpt: Optional[str]


class WebhookDelivery(TypedDict):
    id: str
    webhook_id: str
    event_id: str
    event_type: str
    status: DeliveryStatus
    attempts: int
    next_attempt_at: Optional[str]
    delivered_at: Optional[str]
    created_at: str
    redelivery_of: Optional[str]
    attempt_log: List[DeliveryAttempt]


class DeliveriesResponse(TypedDict):
    data: List[WebhookDelivery]
    next_cursor: Optional[str]


class WebhookEvent(TypedDict):
    """A delivered event. ``type`` stays a plain string so new kinds of event do not break older receivers."""

    id: str
    type: str
    created_at: str
    data: Dict[str, Any]


class TransitionRow(TypedDict):
    band: RiskBand
    total: int
    counts: Dict[str, int]
    shares: Dict[str, float]


class TransitionSummary(TypedDict):
    rated_at_from: int
    upgraded: int
    downgraded: int
    unchanged: int
    withdrawn: int
    rated_since: int


# The functional form: `from` is a keyword in Python.
TransitionsResponse = TypedDict(
    "TransitionsResponse",
    {"from": str, "to": str, "columns": List[str], "rows": List[TransitionRow], "summary": TransitionSummary},
)
"""The band transition matrix between two instants (columns: the five bands, then WITHDRAWN)."""


class BandCount(TypedDict):
    band: RiskBand
    count: int
    share: float


class BandsResponse(TypedDict):
    """Providers per band at one instant."""

    as_of: str
    total: int
    bands: List[BandCount]


class RatingAction(TypedDict):
    """A rating action as it took effect, with the outlook and watch in force after it and its signature in short."""

    id: str
    provider_id: str
    provider_name: str
    type: RatingActionType
    previous_band: Optional[RiskBand]
    new_band: Optional[RiskBand]
    previous_score: Optional[float]
    new_score: Optional[float]
    outlook: Outlook
    watch: Optional[Watch]
    rationale: Optional[str]
    risk_indicator_id: str
    framework_version: str
    proposed_by: Optional[str]
    approved_by: Optional[str]
    effective_at: str
    signature: Optional[Dict[str, str]]


class RatingActionsResponse(TypedDict):
    data: List[RatingAction]
    next_cursor: Optional[str]
