"""A withdrawal in a provider's history, read through both clients from the real service."""

from __future__ import annotations

import asyncio
import unittest

import live_service  # first: puts the package's src folder on sys.path

from svc_client import AsyncClient, Client, is_withdrawal

SERVICE = live_service.LiveService()
WORKED_EXAMPLE = live_service.REPO / "examples" / "dcrf-1.0" / "worked-example.json"
WORKED_ID = "7d1f7c1e-3f0e-4b8a-9a51-5b0c0f9a2d11"


def setUpModule() -> None:
    SERVICE.start()
    SERVICE.cli("inputs", "import", str(WORKED_EXAMPLE), "--by", "alice")
    SERVICE.cli("inputs", "approve", WORKED_ID, "--by", "bob")
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

    def test_iter_history_yields_the_same_entries_page_by_page_in_both_clients(self) -> None:
        whole = self.client.history(WORKED_ID)["data"]
        self.assertEqual(list(self.client.iter_history(WORKED_ID, page_size=1)), whole)

        async def collect() -> list:
            async with AsyncClient(SERVICE.url, api_key=SERVICE.keys["PROFESSIONAL"]) as client:
                return [entry async for entry in client.iter_history(WORKED_ID, page_size=1)]

        self.assertEqual(asyncio.run(collect()), whole)


if __name__ == "__main__":
    unittest.main()
