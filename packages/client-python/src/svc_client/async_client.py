"""The asyncio client: the same methods as ``Client``, awaited. Each call runs the blocking one in a worker thread, so
the package stays standard-library only and the event loop is never blocked (a retry's wait included)."""

from __future__ import annotations

import asyncio
import functools
from concurrent.futures import Executor
from typing import Any, AsyncIterator, Awaitable, Callable, Optional, Sequence, TypeVar

from .client import Client, Holdings, Overrides
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

Result = TypeVar("Result")


class AsyncClient:
    """``AsyncClient(base_url, api_key=None, timeout=10)``: every method of ``Client`` as a coroutine, and the
    ``iter_*`` methods as async iterators (``async for indicator in client.iter_scores(): ...``).

    Calls run on ``executor``, or the event loop's default thread pool when it is None.
    """

    def __init__(
        self,
        base_url: str,
        api_key: Optional[str] = None,
        timeout: float = 10,
        *,
        max_retries: int = 2,
        max_retry_wait: float = 30,
        executor: Optional[Executor] = None,
    ) -> None:
        self._client = Client(base_url, api_key, timeout, max_retries=max_retries, max_retry_wait=max_retry_wait)
        self._executor = executor

    @property
    def base_url(self) -> str:
        return self._client.base_url

    def __repr__(self) -> str:
        return f"AsyncClient({self.base_url!r})"

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Nothing to release; here so ``async with AsyncClient(...)`` reads well."""

    def _run(self, call: Callable[..., Result], *args: Any, **kwargs: Any) -> Awaitable[Result]:
        # run_in_executor rather than asyncio.to_thread, which needs Python 3.9.
        loop = asyncio.get_running_loop()
        return loop.run_in_executor(self._executor, functools.partial(call, *args, **kwargs))

    # ---- public ----

    async def public_scores(
        self, limit: Optional[int] = None, cursor: Optional[str] = None, as_of: Optional[str] = None
    ) -> PublicScoresResponse:
        return await self._run(self._client.public_scores, limit, cursor, as_of)

    def iter_public_scores(
        self, page_size: Optional[int] = None, as_of: Optional[str] = None
    ) -> AsyncIterator[PublicScore]:
        return _async_items(lambda cursor: self.public_scores(page_size or 100, cursor, as_of))

    async def changelog(
        self, since: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> ChangelogResponse:
        return await self._run(self._client.changelog, since, limit, cursor)

    def iter_changelog(
        self, since: Optional[str] = None, page_size: Optional[int] = None
    ) -> AsyncIterator[ChangelogEntry]:
        return _async_items(lambda cursor: self.changelog(since, page_size, cursor))

    async def changelog_atom(self) -> str:
        return await self._run(self._client.changelog_atom)

    async def request_score(
        self,
        provider_name: str,
        *,
        website: Optional[str] = None,
        contact_email: Optional[str] = None,
        planner_type: Optional[PlannerType] = None,
        message: Optional[str] = None,
    ) -> CoverageRequestReceipt:
        return await self._run(
            self._client.request_score,
            provider_name,
            website=website,
            contact_email=contact_email,
            planner_type=planner_type,
            message=message,
        )

    async def score_request_status(self, request_id: str) -> CoverageRequestStatus:
        return await self._run(self._client.score_request_status, request_id)

    async def publication_statement(self, risk_indicator_id: str) -> SignedStatement:
        return await self._run(self._client.publication_statement, risk_indicator_id)

    async def statement(self, statement_sha256: str) -> SignedStatement:
        return await self._run(self._client.statement, statement_sha256)

    async def signing_keys(self) -> SigningKeys:
        return await self._run(self._client.signing_keys)

    async def status(self) -> StatusResponse:
        return await self._run(self._client.status)

    # ---- scores ----

    async def scores(
        self,
        planner_type: Optional[PlannerType] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        as_of: Optional[str] = None,
        fields: Optional[Sequence[str]] = None,
    ) -> ScoresListResponse:
        return await self._run(self._client.scores, planner_type, limit, cursor, as_of, fields)

    def iter_scores(
        self,
        planner_type: Optional[PlannerType] = None,
        page_size: Optional[int] = None,
        as_of: Optional[str] = None,
        fields: Optional[Sequence[str]] = None,
    ) -> AsyncIterator[RiskIndicator]:
        return _async_items(lambda cursor: self.scores(planner_type, page_size, cursor, as_of, fields))

    async def score(
        self, provider_id: str, as_of: Optional[str] = None, fields: Optional[Sequence[str]] = None
    ) -> RiskIndicator:
        return await self._run(self._client.score, provider_id, as_of, fields)

    async def history(
        self, provider_id: str, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> ScoreHistoryResponse:
        return await self._run(self._client.history, provider_id, limit, cursor)

    def iter_history(self, provider_id: str, page_size: Optional[int] = None) -> AsyncIterator[HistoryEntry]:
        return _async_items(lambda cursor: self.history(provider_id, page_size, cursor))

    async def methodology(self, version: Optional[str] = None) -> MethodologyResponse:
        return await self._run(self._client.methodology, version)

    async def computation(self, id: str) -> ComputationPackage:
        return await self._run(self._client.computation, id)

    async def computation_bytes(self, id: str) -> bytes:
        return await self._run(self._client.computation_bytes, id)

    # ---- issuances ----

    async def issuances(
        self,
        status: Optional[IssuanceStatus] = None,
        type: Optional[IssuanceType] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        *,
        include_closed: bool = False,
    ) -> IssuancesResponse:
        return await self._run(self._client.issuances, status, type, limit, cursor, include_closed=include_closed)

    def iter_issuances(
        self,
        status: Optional[IssuanceStatus] = None,
        type: Optional[IssuanceType] = None,
        page_size: Optional[int] = None,
        *,
        include_closed: bool = False,
    ) -> AsyncIterator[Issuance]:
        return _async_items(
            lambda cursor: self.issuances(status, type, page_size, cursor, include_closed=include_closed)
        )

    # ---- analysis ----

    async def search(
        self, q: str, planner_type: Optional[PlannerType] = None, limit: Optional[int] = None
    ) -> ProviderSearchResponse:
        return await self._run(self._client.search, q, planner_type, limit)

    async def compare(self, ids: Sequence[str]) -> Comparison:
        return await self._run(self._client.compare, ids)

    async def export_csv(self, planner_type: Optional[PlannerType] = None) -> str:
        return await self._run(self._client.export_csv, planner_type)

    async def portfolio(self, holdings: Holdings) -> PortfolioScore:
        return await self._run(self._client.portfolio, holdings)

    async def portfolio_memo(self, holdings: Holdings, format: Optional[MemoFormat] = None) -> str:
        return await self._run(self._client.portfolio_memo, holdings, format)

    async def what_if(self, provider_id: str, inputs: Overrides) -> WhatIfResponse:
        return await self._run(self._client.what_if, provider_id, inputs)

    async def memo(self, provider_id: str, format: Optional[MemoFormat] = None) -> str:
        return await self._run(self._client.memo, provider_id, format)

    async def rating_actions(
        self,
        provider_id: Optional[str] = None,
        type: Optional[str] = None,
        since: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> RatingActionsResponse:
        return await self._run(self._client.rating_actions, provider_id, type, since, limit, cursor)

    def iter_rating_actions(
        self,
        provider_id: Optional[str] = None,
        type: Optional[str] = None,
        since: Optional[str] = None,
        page_size: Optional[int] = None,
    ) -> AsyncIterator[RatingAction]:
        return _async_items(lambda cursor: self.rating_actions(provider_id, type, since, page_size, cursor))

    async def rating_actions_atom(self) -> str:
        return await self._run(self._client.rating_actions_atom)

    async def rating_action_statement(self, rating_action_id: str) -> SignedStatement:
        return await self._run(self._client.rating_action_statement, rating_action_id)

    async def transitions(self, from_: str, to: Optional[str] = None) -> TransitionsResponse:
        return await self._run(self._client.transitions, from_, to)

    async def transitions_csv(self, from_: str, to: Optional[str] = None) -> str:
        return await self._run(self._client.transitions_csv, from_, to)

    async def band_counts(self, as_of: Optional[str] = None) -> BandsResponse:
        return await self._run(self._client.band_counts, as_of)

    async def band_counts_csv(self, as_of: Optional[str] = None) -> str:
        return await self._run(self._client.band_counts_csv, as_of)

    async def evidence_schedule(self, provider_id: str, days: Optional[int] = None) -> EvidenceScheduleResponse:
        return await self._run(self._client.evidence_schedule, provider_id, days)

    # ---- webhooks ----

    async def create_webhook(
        self, url: str, events: Sequence[WebhookEventType], description: Optional[str] = None
    ) -> WebhookEndpoint:
        return await self._run(self._client.create_webhook, url, events, description)

    async def list_webhooks(self) -> WebhooksListResponse:
        return await self._run(self._client.list_webhooks)

    async def delete_webhook(self, webhook_id: str) -> None:
        await self._run(self._client.delete_webhook, webhook_id)

    async def deliveries(
        self,
        webhook_id: str,
        status: Optional[DeliveryStatus] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> DeliveriesResponse:
        return await self._run(self._client.deliveries, webhook_id, status, limit, cursor)

    def iter_deliveries(
        self, webhook_id: str, status: Optional[DeliveryStatus] = None, page_size: Optional[int] = None
    ) -> AsyncIterator[WebhookDelivery]:
        return _async_items(lambda cursor: self.deliveries(webhook_id, status, page_size, cursor))

    async def redeliver(self, webhook_id: str, delivery_id: str) -> WebhookDelivery:
        return await self._run(self._client.redeliver, webhook_id, delivery_id)

    async def test_webhook(self, webhook_id: str) -> WebhookDelivery:
        return await self._run(self._client.test_webhook, webhook_id)


async def _async_items(fetch: Callable[[Optional[str]], Awaitable[Any]]) -> AsyncIterator[Any]:
    """The items of every page, in order: each page is fetched with the previous page's ``next_cursor``."""
    cursor: Optional[str] = None
    while True:
        page = await fetch(cursor)
        for item in page["data"]:
            yield item
        cursor = page["next_cursor"]
        if cursor is None:
            return
