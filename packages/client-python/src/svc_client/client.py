"""The blocking client: one method per endpoint of the API, named after what it returns."""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Union, cast

from .transport import QueryValue, Transport, path_segment
from .types import (
    ChangelogEntry,
    ChangelogResponse,
    Comparison,
    ComputationPackage,
    CoverageRequestReceipt,
    CoverageRequestStatus,
    DeliveriesResponse,
    DeliveryStatus,
    EvidenceScheduleResponse,
    RatingAction,
    RatingActionsResponse,
    BandsResponse,
    TransitionsResponse,
    HistoryEntry,
    Holding,
    InputOverride,
    InputValue,
    Issuance,
    IssuancesResponse,
    IssuanceStatus,
    IssuanceType,
    MemoFormat,
    MethodologyResponse,
    PlannerType,
    PortfolioScore,
    ProviderSearchResponse,
    PublicScore,
    PublicScoresResponse,
    RiskIndicator,
    ScoreHistoryResponse,
    ScoresListResponse,
    SignedStatement,
    SigningKeys,
    StatusResponse,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEventType,
    WebhooksListResponse,
    WhatIfResponse,
)

#: Holdings as ``{"provider_id": ..., "amount": ...}`` items, or a mapping of provider id to amount.
Holdings = Union[Mapping[str, float], Iterable[Holding]]
#: What-if overrides: input key to a value, or to ``{"value": ..., "as_of": "YYYY-MM-DD"}``.
Overrides = Mapping[str, Union[InputValue, InputOverride]]


class Client:
    """A client of the Risk Indicator Scoring Service.

    ``Client("https://scores.example.com", api_key="svc_live_...")``. Public endpoints need no key. Every method
    returns the JSON answer as plain dicts and lists (typed by the TypedDicts of ``svc_client.types``) and raises
    ``SvcApiError`` for an error answer, ``SvcNetworkError`` when there is no answer. A GET refused with 429 or 503
    is tried again up to ``max_retries`` times after its ``Retry-After``, unless that is longer than
    ``max_retry_wait`` seconds (then the error is raised at once, with ``retry_after`` set).
    """

    def __init__(
        self,
        base_url: str,
        api_key: Optional[str] = None,
        timeout: float = 10,
        *,
        max_retries: int = 2,
        max_retry_wait: float = 30,
    ) -> None:
        self._http = Transport(base_url, api_key, timeout, max_retries, max_retry_wait)

    @property
    def base_url(self) -> str:
        return self._http.base_url

    def __repr__(self) -> str:
        return f"Client({self.base_url!r})"

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Nothing to release (every request opens its own connection); here so ``with Client(...)`` reads well."""

    # ---- public ----

    def public_scores(
        self, limit: Optional[int] = None, cursor: Optional[str] = None, as_of: Optional[str] = None
    ) -> PublicScoresResponse:
        """Headline score and band of every provider, or with ``limit`` or ``cursor`` one page of them in name
        order (``next_cursor`` then set). With ``as_of`` (an RFC 3339 timestamp, or a date YYYY-MM-DD meaning the
        end of that day UTC), the headlines in force at that instant; a page's cursor goes with the same ``as_of``.
        No key; 120 requests a minute per client IP."""
        query = {"limit": limit, "cursor": cursor, "as_of": as_of}
        return cast(PublicScoresResponse, self._get_json("/api/public/scores", query))

    def iter_public_scores(self, page_size: Optional[int] = None, as_of: Optional[str] = None) -> Iterator[PublicScore]:
        """Every provider's headline (as of ``as_of``, if given), page by page (``page_size`` per request, default
        100)."""
        return _items(lambda cursor: self.public_scores(page_size or 100, cursor, as_of))

    def changelog(
        self, since: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> ChangelogResponse:
        """One page of Risk Indicator changes, newest first; ``since`` is YYYY-MM-DD or a UTC timestamp. No key."""
        query = {"since": since, "limit": limit, "cursor": cursor}
        return cast(ChangelogResponse, self._get_json("/api/public/changelog", query))

    def iter_changelog(self, since: Optional[str] = None, page_size: Optional[int] = None) -> Iterator[ChangelogEntry]:
        """Every change, newest first, fetching the pages as they are needed."""
        return _items(lambda cursor: self.changelog(since, page_size, cursor))

    def changelog_atom(self) -> str:
        """The latest 100 changes as an Atom feed (XML text). No key."""
        return self._http.request("GET", "/api/public/changelog.atom", accept=_text("application/atom+xml")).text()

    def rating_actions(
        self,
        provider_id: Optional[str] = None,
        type: Optional[str] = None,
        since: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> RatingActionsResponse:
        """One page of rating actions, newest first (upgrades, downgrades, affirmations, withdrawals, reinstatements,
        watches and outlooks); ``since`` is YYYY-MM-DD or a UTC timestamp. No key."""
        query = {"provider_id": provider_id, "type": type, "since": since, "limit": limit, "cursor": cursor}
        return cast(RatingActionsResponse, self._get_json("/api/public/rating-actions", query))

    def iter_rating_actions(
        self,
        provider_id: Optional[str] = None,
        type: Optional[str] = None,
        since: Optional[str] = None,
        page_size: Optional[int] = None,
    ) -> Iterator[RatingAction]:
        """Every rating action (with the filters given), newest first, fetching the pages as they are needed."""
        return _items(lambda cursor: self.rating_actions(provider_id, type, since, page_size, cursor))

    def rating_actions_atom(self) -> str:
        """The latest 100 rating actions as an Atom feed (XML text). No key."""
        path = "/api/public/rating-actions.atom"
        return self._http.request("GET", path, accept=_text("application/atom+xml")).text()

    def rating_action_statement(self, rating_action_id: str) -> SignedStatement:
        """A rating action's signed statement (``ra_…``), checked as a publication's is. No key."""
        path = f"/api/public/rating-actions/{path_segment(rating_action_id)}/statement"
        return cast(SignedStatement, self._get_json(path, {}))

    def request_score(
        self,
        provider_name: str,
        *,
        website: Optional[str] = None,
        contact_email: Optional[str] = None,
        planner_type: Optional[PlannerType] = None,
        message: Optional[str] = None,
    ) -> CoverageRequestReceipt:
        """Asks for a provider to be covered. No key; 5 requests an hour per client IP. The same request again
        within 24 hours returns the same ``request_id`` (and the status it has now) without spending that budget."""
        body = _without_none(
            provider_name=provider_name,
            website=website,
            contact_email=contact_email,
            planner_type=planner_type,
            message=message,
        )
        return cast(CoverageRequestReceipt, self._post_json("/api/public/score-request", body))

    def score_request_status(self, request_id: str) -> CoverageRequestStatus:
        """What became of a coverage request (``cr_…``): its status (RECEIVED, IN_REVIEW, COVERED, DECLINED) and
        the resolution note. No key."""
        path = f"/api/public/score-request/{path_segment(request_id)}"
        return cast(CoverageRequestStatus, self._get_json(path, {}))

    def publication_statement(self, risk_indicator_id: str) -> SignedStatement:
        """The signed statement of a publication (``ri_…``): its figures and hashes, signed with Ed25519 over their
        RFC 8785 bytes by the key ``kid`` of signing_keys(). No key."""
        path = f"/api/public/publications/{path_segment(risk_indicator_id)}"
        return cast(SignedStatement, self._get_json(path, {}))

    def statement(self, statement_sha256: str) -> SignedStatement:
        """Any signed statement (a publication's, a withdrawal's, a rating action's) by the SHA-256 of its RFC 8785
        bytes, e.g. a statement's ``prev_statement_sha256``: a provider's chain walks back to its first. No key."""
        path = f"/api/public/statements/{path_segment(statement_sha256)}"
        return cast(SignedStatement, self._get_json(path, {}))

    def transitions(self, from_: str, to: Optional[str] = None) -> TransitionsResponse:
        """The band transition matrix of the providers rated at ``from_`` (a date, meaning the end of that day UTC,
        or an RFC 3339 timestamp) against their band at ``to`` (the present when ``None``) or WITHDRAWN. No key."""
        query = {"from": from_, "to": to}
        return cast(TransitionsResponse, self._get_json("/api/public/statistics/transitions", query))

    def transitions_csv(self, from_: str, to: Optional[str] = None) -> str:
        """The transition matrix as CSV text: one row per band, counts then shares to 4 places. No key."""
        query = {"from": from_, "to": to, "format": "csv"}
        path = "/api/public/statistics/transitions"
        return self._http.request("GET", path, query=query, accept=_text("text/csv")).text()

    def band_counts(self, as_of: Optional[str] = None) -> BandsResponse:
        """Providers per band at ``as_of`` (the present when ``None``), with their shares. No key."""
        return cast(BandsResponse, self._get_json("/api/public/statistics/bands", {"as_of": as_of}))

    def band_counts_csv(self, as_of: Optional[str] = None) -> str:
        """The band counts as CSV text. No key."""
        query = {"as_of": as_of, "format": "csv"}
        return self._http.request("GET", "/api/public/statistics/bands", query=query, accept=_text("text/csv")).text()

    def signing_keys(self) -> SigningKeys:
        """The public keys statements are signed with, as a JWKS (active and retired). No key."""
        return cast(SigningKeys, self._get_json("/.well-known/svc-signing-keys.json", {}))

    def status(self) -> StatusResponse:
        """Platform status, data freshness and framework version. No key, not rate limited."""
        return cast(StatusResponse, self._get_json("/api/v1/status"))

    # ---- scores (PROFESSIONAL and above; computation packages ENTERPRISE) ----

    def scores(
        self,
        planner_type: Optional[PlannerType] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        as_of: Optional[str] = None,
        fields: Optional[Sequence[str]] = None,
    ) -> ScoresListResponse:
        """One page of current Risk Indicators, by provider name (``limit`` 1 to 500, default 100); with ``as_of``,
        those in force at that instant, as published then (a page's cursor goes with the same ``as_of``); with
        ``fields`` (such as ``["provider_id", "final_score", "risk_band"]``), only those top-level fields of each,
        in the order of the full form."""
        query = {
            "planner_type": planner_type,
            "limit": limit,
            "cursor": cursor,
            "as_of": as_of,
            "fields": _fields(fields),
        }
        return cast(ScoresListResponse, self._get_json("/api/v1/scores", query))

    def iter_scores(
        self,
        planner_type: Optional[PlannerType] = None,
        page_size: Optional[int] = None,
        as_of: Optional[str] = None,
        fields: Optional[Sequence[str]] = None,
    ) -> Iterator[RiskIndicator]:
        """Every current Risk Indicator (or every one in force at ``as_of``; with ``fields``, only those fields of
        each), by provider name, fetching the pages as they are needed."""
        return _items(lambda cursor: self.scores(planner_type, page_size, cursor, as_of, fields))

    def score(
        self, provider_id: str, as_of: Optional[str] = None, fields: Optional[Sequence[str]] = None
    ) -> RiskIndicator:
        """A provider's current Risk Indicator; with ``as_of`` (an RFC 3339 timestamp, or a date YYYY-MM-DD meaning
        the end of that day UTC), the one in force at that instant, as published then. 404 ``not_found`` when it
        has none (then). With ``fields``, only those top-level fields, in the order of the full form."""
        path = f"/api/v1/scores/{path_segment(provider_id)}"
        return cast(RiskIndicator, self._get_json(path, {"as_of": as_of, "fields": _fields(fields)}))

    def history(
        self, provider_id: str, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> ScoreHistoryResponse:
        """One page of a provider's history, newest first: published Risk Indicators (``entry_type ==
        "publication"``), and withdrawals as entries of their own (``entry_type == "withdrawal"``; see
        ``svc_client.is_withdrawal``)."""
        path = f"/api/v1/scores/{path_segment(provider_id)}/history"
        return cast(ScoreHistoryResponse, self._get_json(path, {"limit": limit, "cursor": cursor}))

    def iter_history(self, provider_id: str, page_size: Optional[int] = None) -> Iterator[HistoryEntry]:
        """Every entry of a provider's history (publications and withdrawals), newest first."""
        return _items(lambda cursor: self.history(provider_id, page_size, cursor))

    def methodology(self, version: Optional[str] = None) -> MethodologyResponse:
        """The framework as published data; the current version when ``version`` (such as ``"1.0"``) is None."""
        return cast(MethodologyResponse, self._get_json("/api/v1/methodology", {"version": version}))

    def computation(self, id: str) -> ComputationPackage:
        """The computation package of a published Risk Indicator (``ri_…``), parsed. ENTERPRISE and above."""
        return cast(ComputationPackage, self._http.request("GET", self._computation_path(id)).json())

    def computation_bytes(self, id: str) -> bytes:
        """The computation package as its stored RFC 8785 bytes: save these to check them with ``svc verify``."""
        return self._http.request("GET", self._computation_path(id)).body

    # ---- issuances (any tier) ----

    def issuances(
        self,
        status: Optional[IssuanceStatus] = None,
        type: Optional[IssuanceType] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        *,
        include_closed: bool = False,
    ) -> IssuancesResponse:
        """One page of upcoming issuances (preferred shares and bonds), newest first; with ``include_closed`` the
        closed ones (PRICED, CANCELLED) too."""
        query = {
            "status": status,
            "type": type,
            "limit": limit,
            "cursor": cursor,
            "include_closed": True if include_closed else None,
        }
        return cast(IssuancesResponse, self._get_json("/api/v1/issuances", query))

    def iter_issuances(
        self,
        status: Optional[IssuanceStatus] = None,
        type: Optional[IssuanceType] = None,
        page_size: Optional[int] = None,
        *,
        include_closed: bool = False,
    ) -> Iterator[Issuance]:
        """Every upcoming issuance (and closed one, with ``include_closed``), newest first."""
        return _items(lambda cursor: self.issuances(status, type, page_size, cursor, include_closed=include_closed))

    # ---- analysis (PROFESSIONAL and above) ----

    def search(
        self, q: str, planner_type: Optional[PlannerType] = None, limit: Optional[int] = None
    ) -> ProviderSearchResponse:
        """Providers whose name matches ``q`` (case and accents ignored), best match first (``limit`` 1 to 50)."""
        query = {"q": q, "planner_type": planner_type, "limit": limit}
        return cast(ProviderSearchResponse, self._get_json("/api/v1/providers/search", query))

    def compare(self, ids: Sequence[str]) -> Comparison:
        """2 to 10 providers side by side: indicators, points per criterion and module, spreads and leaders."""
        if isinstance(ids, str):
            raise TypeError("compare takes a list of provider ids, not one string")
        return cast(Comparison, self._get_json("/api/v1/scores/compare", {"ids": ",".join(ids)}))

    def export_csv(self, planner_type: Optional[PlannerType] = None) -> str:
        """Current Risk Indicators as RFC 4180 CSV text with a header row, one row per provider."""
        query = {"planner_type": planner_type}
        return self._http.request("GET", "/api/v1/scores/export.csv", query=query, accept=_text("text/csv")).text()

    def portfolio(self, holdings: Holdings) -> PortfolioScore:
        """The amount-weighted score and band of holdings, the weakest ones, concentration and exposure per band."""
        body = {"holdings": _holdings(holdings)}
        return cast(PortfolioScore, self._post_json("/api/v1/portfolio/score", body))

    def portfolio_memo(self, holdings: Holdings, format: Optional[MemoFormat] = None) -> str:
        """A credit memo for holdings, as Markdown (default) or HTML text."""
        return self._http.request(
            "POST",
            "/api/v1/portfolio/memo",
            query={"format": format},
            body={"holdings": _holdings(holdings)},
            accept=_memo_type(format),
        ).text()

    def what_if(self, provider_id: str, inputs: Overrides) -> WhatIfResponse:
        """A provider's indicator recomputed with some approved inputs changed; nothing is stored."""
        path = f"/api/v1/scores/{path_segment(provider_id)}/what-if"
        return cast(WhatIfResponse, self._post_json(path, {"inputs": dict(inputs)}))

    def memo(self, provider_id: str, format: Optional[MemoFormat] = None) -> str:
        """A credit memo of a provider's current indicator, as Markdown (default) or HTML text."""
        path = f"/api/v1/scores/{path_segment(provider_id)}/memo"
        return self._http.request("GET", path, query={"format": format}, accept=_memo_type(format)).text()

    def evidence_schedule(self, provider_id: str, days: Optional[int] = None) -> EvidenceScheduleResponse:
        """The dates within ``days`` (1 to 730, default 365) of today on which the provider's indicator in force
        changes if no new evidence comes (an input passes 90 or 365 days, HC-07 fires, the score or band moves,
        publishability is lost), each with its figures then; 404 ``not_found`` when it has no indicator in force."""
        path = f"/api/v1/scores/{path_segment(provider_id)}/evidence-schedule"
        return cast(EvidenceScheduleResponse, self._get_json(path, {"days": days}))

    # ---- webhooks (PROFESSIONAL and above) ----

    def create_webhook(
        self, url: str, events: Sequence[WebhookEventType], description: Optional[str] = None
    ) -> WebhookEndpoint:
        """Registers an https endpoint for these events; deliveries are signed with the workspace secret."""
        body = _without_none(url=url, events=list(events), description=description)
        return cast(WebhookEndpoint, self._post_json("/api/v1/webhooks", body))

    def list_webhooks(self) -> WebhooksListResponse:
        """The workspace's webhook endpoints, oldest first."""
        return cast(WebhooksListResponse, self._get_json("/api/v1/webhooks"))

    def delete_webhook(self, webhook_id: str) -> None:
        """Removes an endpoint; its pending deliveries are cancelled."""
        self._http.request("DELETE", f"/api/v1/webhooks/{path_segment(webhook_id)}")

    def deliveries(
        self,
        webhook_id: str,
        status: Optional[DeliveryStatus] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> DeliveriesResponse:
        """One page of an endpoint's delivery log, newest first, each delivery with its attempts."""
        path = f"/api/v1/webhooks/{path_segment(webhook_id)}/deliveries"
        query = {"status": status, "limit": limit, "cursor": cursor}
        return cast(DeliveriesResponse, self._get_json(path, query))

    def iter_deliveries(
        self, webhook_id: str, status: Optional[DeliveryStatus] = None, page_size: Optional[int] = None
    ) -> Iterator[WebhookDelivery]:
        """An endpoint's whole delivery log, newest first."""
        return _items(lambda cursor: self.deliveries(webhook_id, status, page_size, cursor))

    def redeliver(self, webhook_id: str, delivery_id: str) -> WebhookDelivery:
        """Sends a delivery's event again (same event id, same bytes) as a new delivery."""
        path = f"/api/v1/webhooks/{path_segment(webhook_id)}/deliveries/{path_segment(delivery_id)}/redeliver"
        return cast(WebhookDelivery, self._post_json(path, None))

    def test_webhook(self, webhook_id: str) -> WebhookDelivery:
        """Queues a signed ``ping`` event for this endpoint only; follow it with ``deliveries``."""
        path = f"/api/v1/webhooks/{path_segment(webhook_id)}/test"
        return cast(WebhookDelivery, self._post_json(path, None))

    # ---- plumbing ----

    def _get_json(self, path: str, query: Optional[Mapping[str, QueryValue]] = None) -> Any:
        return self._http.request("GET", path, query=query).json()

    def _post_json(self, path: str, body: Any) -> Any:
        return self._http.request("POST", path, body=body).json()

    @staticmethod
    def _computation_path(id: str) -> str:
        return f"/api/v1/computation/{path_segment(id)}"


def _items(fetch: Callable[[Optional[str]], Any]) -> Iterator[Any]:
    """The items of every page, in order: each page is fetched with the previous page's ``next_cursor``."""
    cursor: Optional[str] = None
    while True:
        page = fetch(cursor)
        yield from page["data"]
        cursor = page["next_cursor"]
        if cursor is None:
            return


def _without_none(**fields: Any) -> Dict[str, Any]:
    return {name: value for name, value in fields.items() if value is not None}


def _holdings(holdings: Holdings) -> List[Dict[str, Any]]:
    if isinstance(holdings, Mapping):
        amounts = cast(Mapping[str, float], holdings)
        return [{"provider_id": provider_id, "amount": amount} for provider_id, amount in amounts.items()]
    return [dict(holding) for holding in holdings]


def _memo_type(format: Optional[MemoFormat]) -> str:
    return _text("text/html" if format == "html" else "text/markdown")


def _text(media_type: str) -> str:
    """The Accept value of a route that answers other than JSON: its type, or problem details on an error."""
    return f"{media_type}, application/problem+json"


def _fields(fields: Optional[Sequence[str]]) -> Optional[str]:
    """``fields`` as the API reads it: the names, comma-separated (a plain string is taken as it is)."""
    if fields is None:
        return None
    if isinstance(fields, str):
        return fields
    return ",".join(fields)
