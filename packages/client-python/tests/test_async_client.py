"""The asyncio client against the real service: the same methods as the blocking client, with the same answers."""

from __future__ import annotations

import asyncio
import inspect
import time
import unittest
from typing import Any, List, Optional, Tuple

import live_service  # first: puts the package's src folder on sys.path
from scripted_server import OK, ScriptedServer

from svc_client import AsyncClient, Client, SvcApiError

SERVICE = live_service.LiveService()
UNKNOWN_PROVIDER = "00000000-0000-4000-8000-000000000000"


def setUpModule() -> None:
    SERVICE.start()


def tearDownModule() -> None:
    SERVICE.stop()


def clients(tier: Optional[str] = "PROFESSIONAL") -> Tuple[AsyncClient, Client]:
    key = SERVICE.keys[tier] if tier else None
    return AsyncClient(SERVICE.url, api_key=key), Client(SERVICE.url, api_key=key)


async def collect(items: Any) -> List[Any]:
    return [item async for item in items]


def public_methods(cls: type) -> List[str]:
    return sorted(name for name, _ in inspect.getmembers(cls, callable) if not name.startswith("_"))


class Shape(unittest.TestCase):
    def test_the_async_client_has_every_method_of_the_blocking_one_with_the_same_parameters(self) -> None:
        self.assertEqual(public_methods(AsyncClient), public_methods(Client))
        for name in public_methods(Client):
            blocking, awaited = getattr(Client, name), getattr(AsyncClient, name)
            self.assertEqual(
                list(inspect.signature(awaited).parameters), list(inspect.signature(blocking).parameters), name
            )
            if name.startswith("iter_"):
                self.assertFalse(inspect.iscoroutinefunction(awaited), name)
            else:
                self.assertTrue(inspect.iscoroutinefunction(awaited), name)


class Reads(unittest.IsolatedAsyncioTestCase):
    async def test_public_reads_answer_as_the_blocking_client_does(self) -> None:
        aclient, client = clients(None)
        public = await aclient.public_scores()
        self.assertEqual(public["data"], client.public_scores()["data"])
        self.assertEqual(await collect(aclient.iter_public_scores(page_size=3)), list(client.iter_public_scores(7)))
        self.assertEqual((await aclient.status())["status"], "ok")
        self.assertEqual(await aclient.changelog(limit=4), client.changelog(limit=4))
        since = client.changelog(limit=1)["data"][0]["changed_at"]
        self.assertEqual(await aclient.changelog(since=since), client.changelog(since=since))
        self.assertEqual(await collect(aclient.iter_changelog(page_size=5)), list(client.iter_changelog()))
        self.assertIn("<feed", await aclient.changelog_atom())

    async def test_request_score_is_received(self) -> None:
        aclient, _ = clients(None)
        receipt = await aclient.request_score("Async Example Lending", contact_email="ops@example.com")
        self.assertEqual(receipt["status"], "RECEIVED")
        again = await aclient.request_score("Async Example Lending", contact_email="ops@example.com")
        self.assertEqual(again["request_id"], receipt["request_id"])

    async def test_scores_history_and_methodology_answer_as_the_blocking_client_does(self) -> None:
        aclient, client = clients()
        self.assertEqual(await aclient.scores(limit=2), client.scores(limit=2))
        self.assertEqual(await aclient.scores("btc", limit=500), client.scores("btc", limit=500))
        provider_id = client.scores(limit=1)["data"][0]["provider_id"]
        self.assertEqual(await aclient.score(provider_id), client.score(provider_id))
        instant = client.score(provider_id)["published_at"]
        self.assertEqual(await aclient.score(provider_id, as_of=instant), client.score(provider_id, as_of=instant))
        self.assertEqual(await aclient.scores(limit=2, as_of=instant), client.scores(limit=2, as_of=instant))
        self.assertEqual((await aclient.public_scores(as_of=instant))["data"], client.public_scores(as_of=instant)["data"])
        fields = ["provider_id", "risk_band"]
        self.assertEqual(await aclient.score(provider_id, fields=fields), client.score(provider_id, fields=fields))
        self.assertEqual(await aclient.scores(limit=2, fields=fields), client.scores(limit=2, fields=fields))
        self.assertEqual(await aclient.history(provider_id), client.history(provider_id))
        self.assertEqual(await aclient.methodology(), client.methodology())
        self.assertEqual(await aclient.methodology("1.0"), client.methodology("1.0"))

    async def test_async_iteration_with_a_small_page_yields_each_item_once_in_order(self) -> None:
        aclient, client = clients()
        everything = [i["provider_id"] for i in client.scores(limit=500)["data"]]
        iterated = [i["provider_id"] for i in await collect(aclient.iter_scores(page_size=4))]
        self.assertEqual(iterated, everything)
        self.assertEqual(len(set(iterated)), len(everything))
        stable = [i["provider_id"] for i in await collect(aclient.iter_scores("stablecoin", page_size=1))]
        self.assertEqual(stable, [i["provider_id"] for i in client.scores("stablecoin", limit=500)["data"]])
        changed = next(c for c in client.changelog(limit=500)["data"] if c["change_type"] == "SCORE_CHANGE")
        history = await collect(aclient.iter_history(changed["provider_id"], page_size=1))
        self.assertEqual(history, client.history(changed["provider_id"], limit=500)["data"])

    async def test_computation_for_an_enterprise_key(self) -> None:
        aclient, client = clients("ENTERPRISE")
        ri = client.scores(limit=1)["data"][0]["risk_indicator_id"]
        self.assertEqual(await aclient.computation(ri), client.computation(ri))
        self.assertEqual(await aclient.computation_bytes(ri), client.computation_bytes(ri))

    async def test_issuances_for_a_free_key(self) -> None:
        aclient, client = clients("FREE")
        self.assertEqual(await aclient.issuances(), client.issuances())
        self.assertEqual(await aclient.issuances(status="PRICING", type="bond"), client.issuances("PRICING", "bond"))
        iterated = await collect(aclient.iter_issuances(page_size=3))
        self.assertEqual(iterated, client.issuances()["data"])
        bonds = await collect(aclient.iter_issuances(type="bond", page_size=1))
        self.assertEqual(bonds, client.issuances(type="bond")["data"])

    async def test_calls_run_concurrently_and_leave_the_event_loop_free(self) -> None:
        slow = ScriptedServer(OK, delay=0.4)
        self.addCleanup(slow.close)
        aclient = AsyncClient(slow.url)
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticker = asyncio.ensure_future(tick())
        started = time.monotonic()
        answers = await asyncio.gather(*(aclient.status() for _ in range(4)))
        elapsed = time.monotonic() - started
        ticker.cancel()
        self.assertEqual(answers, [{"status": "ok"}] * 4)
        self.assertLess(elapsed, 1.2)  # four 0.4 s calls one after the other would take 1.6 s
        self.assertGreater(ticks, 10)  # the loop ran other work while the calls waited

    async def test_async_with_closes_nothing_it_needs(self) -> None:
        async with AsyncClient(SERVICE.url) as aclient:
            self.assertEqual((await aclient.status())["status"], "ok")


class Analysis(unittest.IsolatedAsyncioTestCase):
    async def test_search_compare_and_export_answer_as_the_blocking_client_does(self) -> None:
        aclient, client = clients()
        self.assertEqual(await aclient.search("sats", limit=5), client.search("sats", limit=5))
        self.assertEqual(await aclient.search("demo", "btc"), client.search("demo", "btc"))
        ids = [i["provider_id"] for i in client.scores(limit=2)["data"]]
        self.assertEqual(await aclient.compare(ids), client.compare(ids))
        csv_text = await aclient.export_csv()
        self.assertEqual(csv_text.splitlines()[0], client.export_csv().splitlines()[0])
        self.assertEqual(await aclient.export_csv("fiat"), client.export_csv("fiat"))

    async def test_portfolio_and_its_memo(self) -> None:
        aclient, client = clients()
        first, second = client.scores(limit=2)["data"]
        holdings = {first["provider_id"]: 250.0, second["provider_id"]: 750.0}
        self.assertEqual(await aclient.portfolio(holdings), client.portfolio(holdings))
        memo = await aclient.portfolio_memo(holdings)
        self.assertIn(first["name"], memo)
        self.assertIn("<html", (await aclient.portfolio_memo(holdings, "html")).lower())

    async def test_what_if_and_memo(self) -> None:
        aclient, client = clients()
        indicator = client.scores(limit=1)["data"][0]
        answer = await aclient.what_if(indicator["provider_id"], {"collateral_coverage_ratio": {"value": 0.5}})
        self.assertIs(answer["stored"], False)
        self.assertEqual(answer["base"]["risk_indicator_id"], indicator["risk_indicator_id"])
        self.assertIn(indicator["name"], await aclient.memo(indicator["provider_id"]))
        self.assertIn("<html", (await aclient.memo(indicator["provider_id"], format="html")).lower())

    async def test_rating_actions(self) -> None:
        aclient, client = clients()
        self.assertEqual(await aclient.rating_actions(limit=3), client.rating_actions(limit=3))
        every = [a async for a in aclient.iter_rating_actions(page_size=4)]
        self.assertEqual(every, list(client.iter_rating_actions()))
        first = every[0]
        self.assertEqual(
            await aclient.rating_action_statement(first["id"]), client.rating_action_statement(first["id"])
        )
        self.assertIn("<feed", await aclient.rating_actions_atom())

    async def test_track_record(self) -> None:
        aclient, client = clients()
        self.assertEqual(await aclient.band_counts("2026-06-30"), client.band_counts("2026-06-30"))
        self.assertEqual(await aclient.transitions("2026-06-30", "2026-07-31"), client.transitions("2026-06-30", "2026-07-31"))
        self.assertEqual(await aclient.band_counts_csv("2026-06-30"), client.band_counts_csv("2026-06-30"))
        csv = await aclient.transitions_csv("2026-06-30", "2026-07-31")
        self.assertTrue(csv.startswith("from,to,band,"))

    async def test_evidence_schedule(self) -> None:
        aclient, client = clients()
        provider_id = client.scores(limit=1)["data"][0]["provider_id"]
        self.assertEqual(await aclient.evidence_schedule(provider_id, 90), client.evidence_schedule(provider_id, 90))
        self.assertEqual((await aclient.evidence_schedule(provider_id))["days"], 365)
        with self.assertRaises(SvcApiError) as caught:
            await aclient.evidence_schedule(provider_id, 0)
        self.assertEqual(caught.exception.errors, [{"path": "query.days", "message": "must be at least 1"}])


class Webhooks(unittest.IsolatedAsyncioTestCase):
    async def test_create_ping_redeliver_and_delete_an_endpoint(self) -> None:
        aclient, _ = clients()
        with live_service.WebhookReceiver() as receiver:
            endpoint = await aclient.create_webhook(receiver.url, ["risk_indicator.band_changed"])
            self.assertIn(endpoint["id"], [w["id"] for w in (await aclient.list_webhooks())["data"]])
            queued = await aclient.test_webhook(endpoint["id"])
            delivery = await asyncio.get_running_loop().run_in_executor(None, receiver.next_delivery)
            self.assertEqual(delivery.headers["x-svc-event-id"], queued["event_id"])
            again = await aclient.redeliver(endpoint["id"], queued["id"])
            self.assertEqual(again["redelivery_of"], queued["id"])
            redelivered = await asyncio.get_running_loop().run_in_executor(None, receiver.next_delivery)
            self.assertEqual(redelivered.body, delivery.body)
            page = await aclient.deliveries(endpoint["id"], limit=1)
            self.assertEqual(len(page["data"]), 1)
            logged = await collect(aclient.iter_deliveries(endpoint["id"], page_size=1))
            self.assertEqual(sorted(d["id"] for d in logged), sorted([queued["id"], again["id"]]))
            await aclient.delete_webhook(endpoint["id"])
            self.assertNotIn(endpoint["id"], [w["id"] for w in (await aclient.list_webhooks())["data"]])


class Errors(unittest.IsolatedAsyncioTestCase):
    async def test_error_answers_raise_svc_api_error_with_the_problem_fields(self) -> None:
        cases = [
            (AsyncClient(SERVICE.url).scores(), 401, "missing_api_key"),
            (clients("FREE")[0].scores(), 403, "insufficient_tier"),
            (clients()[0].score(UNKNOWN_PROVIDER), 404, "not_found"),
            (clients()[0].issuances(limit=501), 400, "invalid_request"),
        ]
        for call, status, code in cases:
            with self.subTest(code=code):
                with self.assertRaises(SvcApiError) as caught:
                    await call
                self.assertEqual((caught.exception.status, caught.exception.code), (status, code))
                self.assertTrue(caught.exception.request_id)
                self.assertTrue(caught.exception.detail)

    async def test_an_error_ends_async_iteration_with_svc_api_error(self) -> None:
        with self.assertRaises(SvcApiError) as caught:
            await collect(clients("FREE")[0].iter_scores())
        self.assertEqual(caught.exception.required_tier, "PROFESSIONAL")


if __name__ == "__main__":
    unittest.main()
