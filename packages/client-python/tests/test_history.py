"""What the operator records and the clients read back from the real service: a withdrawal in a provider's history,
and an issuance closed off the upcoming list."""

from __future__ import annotations

import asyncio
import json
import unittest

import live_service  # first: puts the package's src folder on sys.path

from svc_client import AsyncClient, Client, is_withdrawal

SERVICE = live_service.LiveService()
WORKED_EXAMPLE = live_service.REPO / "examples" / "dcrf-1.0" / "worked-example.json"
WORKED_ID = "7d1f7c1e-3f0e-4b8a-9a51-5b0c0f9a2d11"


def setUpModule() -> None:
    SERVICE.start()
    imported = json.loads(SERVICE.cli("inputs", "import", str(WORKED_EXAMPLE), "--by", "alice", "--json"))
    # An approval names the content it approves: the inputs SHA-256 the import printed.
    SERVICE.cli("inputs", "approve", WORKED_ID, "--sha256", imported[0]["inputs_sha256"], "--by", "bob")
    SERVICE.cli("publish", WORKED_ID)
    SERVICE.cli("provider", "withdraw", WORKED_ID, "--reason", "ceased lending")
    # Published again from the same inputs: the same content-addressed indicator id as before the withdrawal.
    SERVICE.cli("publish", WORKED_ID)


def tearDownModule() -> None:
    SERVICE.stop()


def kinds(entries: list) -> list:
    return [
        f"withdrawal of {e['withdrawn_risk_indicator_id']}" if is_withdrawal(e) else e["risk_indicator_id"]
        for e in entries
    ]


class History(unittest.TestCase):
    def setUp(self) -> None:
        self.client = Client(SERVICE.url, api_key=SERVICE.keys["PROFESSIONAL"])

    def test_the_withdrawal_is_an_entry_of_its_own_between_the_two_publications(self) -> None:
        data = self.client.history(WORKED_ID)["data"]
        current = self.client.score(WORKED_ID)["risk_indicator_id"]
        self.assertEqual(kinds(data), [current, f"withdrawal of {current}", current])
        withdrawal = data[1]
        self.assertEqual(withdrawal["entry_type"], "withdrawal")
        self.assertEqual(withdrawal["reason"], "ceased lending")
        self.assertEqual(withdrawal["previous_band"], "MEDIUM")

    def test_every_entry_names_its_kind_and_a_publication_is_the_indicator_as_score_reads_it(self) -> None:
        data = self.client.history(WORKED_ID)["data"]
        self.assertEqual([e["entry_type"] for e in data], ["publication", "withdrawal", "publication"])
        newest = dict(data[0])
        self.assertEqual(next(iter(newest)), "entry_type")
        del newest["entry_type"]
        self.assertEqual(newest, self.client.score(WORKED_ID))

    def test_iter_history_yields_the_same_entries_page_by_page_in_both_clients(self) -> None:
        whole = self.client.history(WORKED_ID)["data"]
        self.assertEqual(list(self.client.iter_history(WORKED_ID, page_size=1)), whole)

        async def collect() -> list:
            async with AsyncClient(SERVICE.url, api_key=SERVICE.keys["PROFESSIONAL"]) as client:
                return [entry async for entry in client.iter_history(WORKED_ID, page_size=1)]

        self.assertEqual(asyncio.run(collect()), whole)


class ClosedIssuances(unittest.TestCase):
    def test_a_closed_issuance_leaves_the_upcoming_list_and_include_closed_shows_it(self) -> None:
        free = Client(SERVICE.url, api_key=SERVICE.keys["FREE"])
        upcoming = free.issuances(limit=500)["data"]
        closing = upcoming[0]["id"]
        self.assertTrue(closing.startswith("iss_"))
        self.assertIsInstance(upcoming[0]["target_amount"], (int, float))
        SERVICE.cli("issuances", "close", closing, "--status", "CANCELLED")
        self.assertNotIn(closing, [i["id"] for i in free.issuances(limit=500)["data"]])
        everything = {i["id"]: i["status"] for i in free.iter_issuances(page_size=2, include_closed=True)}
        self.assertEqual(everything[closing], "CANCELLED")
        self.assertEqual(len(everything), len(upcoming))


if __name__ == "__main__":
    unittest.main()
