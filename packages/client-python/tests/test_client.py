"""The blocking client against the real service on the demo data: every method, pagination and the error answers."""

from __future__ import annotations

import csv
import datetime
import gzip
import io
import json
import re
import socket
import time
import unittest
import urllib.request
from typing import Optional

import live_service  # first: puts the package's src folder on sys.path

from svc_client import Client, SvcApiError, SvcNetworkError

SERVICE = live_service.LiveService()
DEMO_PROVIDERS = 14
DEMO_ISSUANCES = 8
DEMO_CHANGES = 20
UNKNOWN_PROVIDER = "00000000-0000-4000-8000-000000000000"
RISK_INDICATOR_ID = re.compile(r"^ri_[0-9a-f]{24}$")


def setUpModule() -> None:
    SERVICE.start()


def tearDownModule() -> None:
    SERVICE.stop()


def client(tier: Optional[str] = "PROFESSIONAL") -> Client:
    """A client with the module's key of that tier, or with no key."""
    return Client(SERVICE.url, api_key=SERVICE.keys[tier] if tier else None)


def assert_problem_fields(test: unittest.TestCase, error: SvcApiError) -> None:
    """The problem fields every error answer carries."""
    test.assertTrue(error.title)
    test.assertTrue(error.detail)
    test.assertTrue(error.request_id)
    test.assertEqual(error.type, f"{SERVICE.url}/docs/errors#{error.code}")
    assert error.problem is not None
    test.assertEqual(error.problem["status"], error.status)


def _indicator_of(entry: dict) -> dict:
    """A publication of a provider's history as the indicator's own form: without its entry_type."""
    return {k: v for k, v in entry.items() if k != "entry_type"}


class PublicEndpoints(unittest.TestCase):
    def test_public_scores_lists_every_demo_provider_with_its_headline_score_only(self) -> None:
        answer = client(None).public_scores()
        self.assertEqual(len(answer["data"]), DEMO_PROVIDERS)
        self.assertTrue(answer["limitations_disclosure"])
        self.assertIsInstance(answer["cached"], bool)
        for provider in answer["data"]:
            self.assertTrue(provider["name"].endswith("(demo)"))
            self.assertNotIn("criterion_scores", provider)
        self.assertEqual({p["risk_band"] for p in answer["data"]}, {"LOW", "MEDIUM", "ELEVATED", "HIGH", "SEVERE"})

    def test_public_scores_in_pages_walk_the_same_list_in_name_order(self) -> None:
        whole = client(None).public_scores()
        self.assertNotIn("next_cursor", whole)
        first = client(None).public_scores(limit=5)
        self.assertEqual(len(first["data"]), 5)
        self.assertIsNotNone(first["next_cursor"])
        walked = list(client(None).iter_public_scores(page_size=4))
        self.assertEqual(walked, sorted(whole["data"], key=lambda p: (p["name"], p["id"])))

    def test_status_answers_without_a_key(self) -> None:
        status = client(None).status()
        self.assertEqual(status["status"], "ok")
        self.assertEqual(status["framework_version"], "DCRF v1.0")
        self.assertEqual(status["components"]["store"], "ok")

    def test_changelog_pages_follow_next_cursor_and_iter_changelog_yields_each_change_once(self) -> None:
        public = client(None)
        everything = public.changelog(limit=500)["data"]
        self.assertEqual(len(everything), DEMO_CHANGES)
        first = public.changelog(limit=5)
        self.assertEqual(len(first["data"]), 5)
        self.assertIsNotNone(first["next_cursor"])
        second = public.changelog(limit=5, cursor=first["next_cursor"])
        self.assertEqual([c["id"] for c in first["data"] + second["data"]], [c["id"] for c in everything[:10]])
        self.assertEqual([c["id"] for c in public.iter_changelog(page_size=5)], [c["id"] for c in everything])

    def test_changelog_since_keeps_the_changes_at_or_after_it(self) -> None:
        public = client(None)
        since = public.changelog(limit=1)["data"][0]["changed_at"]
        changes = public.changelog(since=since, limit=500)["data"]
        self.assertTrue(changes)
        self.assertLess(len(changes), DEMO_CHANGES)
        self.assertTrue(all(c["changed_at"] >= since for c in changes))

    def test_changelog_atom_is_an_atom_feed(self) -> None:
        feed = client(None).changelog_atom()
        self.assertIn("<feed", feed)
        self.assertIn("http://www.w3.org/2005/Atom", feed)

    def test_the_client_asks_for_no_coding_and_gets_the_bytes_as_they_are(self) -> None:
        # urllib does not decode gzip or brotli: the client sends no Accept-Encoding of its own (http.client says
        # identity), so the service, which compresses the list for a client that asks, answers it uncompressed.
        client(None).public_scores()  # the first answer after a publication is built fresh (cached: false)
        answer = client(None)._http.request("GET", "/api/public/scores")
        self.assertIsNone(answer.headers.get("Content-Encoding"))
        self.assertIn("Accept-Encoding", answer.headers.get("Vary", ""))
        self.assertGreater(len(answer.body), 1024)
        self.assertEqual(len(answer.json()["data"]), DEMO_PROVIDERS)
        asked = urllib.request.Request(f"{SERVICE.url}/api/public/scores", headers={"Accept-Encoding": "gzip"})
        for _ in range(100):  # the gzip form is built in the background after the list
            with urllib.request.urlopen(asked, timeout=10) as coded:  # noqa: S310 (the local service)
                if coded.headers.get("Content-Encoding") == "gzip":
                    self.assertEqual(gzip.decompress(coded.read()), answer.body)
                    break
            time.sleep(0.05)
        else:
            self.fail("the service never sent the list in gzip to a client that asked for it")

    def test_request_score_is_received_and_the_same_request_again_gets_the_same_id(self) -> None:
        public = client(None)
        receipt = public.request_score("Example Sats Lending", website="https://example.com", planner_type="btc")
        self.assertEqual(receipt["status"], "RECEIVED")
        self.assertTrue(receipt["request_id"].startswith("cr_"))
        again = public.request_score("Example Sats Lending", website="https://example.com", planner_type="btc")
        self.assertEqual(again["request_id"], receipt["request_id"])

    def test_score_request_status_answers_the_status_and_note_only_and_404_for_an_unknown_id(self) -> None:
        public = client(None)
        receipt = public.request_score("Status Lending", contact_email="ops@status.example")
        self.assertEqual(
            public.score_request_status(receipt["request_id"]),
            {"request_id": receipt["request_id"], "status": "RECEIVED", "resolution_note": None},
        )
        SERVICE.cli("requests", "set", receipt["request_id"], "--status", "DECLINED", "--note", "Not in scope.")
        answer = public.score_request_status(receipt["request_id"])
        self.assertEqual((answer["status"], answer["resolution_note"]), ("DECLINED", "Not in scope."))
        with self.assertRaises(SvcApiError) as caught:
            public.score_request_status("cr_" + "0" * 24)
        self.assertEqual(caught.exception.code, "not_found")


class Scores(unittest.TestCase):
    def test_scores_lists_every_current_indicator_by_name(self) -> None:
        page = client().scores(limit=500)
        names = [i["name"] for i in page["data"]]
        self.assertEqual(len(names), DEMO_PROVIDERS)
        self.assertEqual(names, sorted(names))
        self.assertIsNone(page["next_cursor"])
        self.assertEqual(page["framework_version"], "DCRF v1.0")
        for indicator in page["data"]:
            self.assertRegex(indicator["risk_indicator_id"], RISK_INDICATOR_ID)
            self.assertTrue(indicator["criterion_scores"])

    def test_scores_filters_by_planner_type(self) -> None:
        btc = client().scores(planner_type="btc", limit=500)["data"]
        self.assertTrue(btc)
        self.assertLess(len(btc), DEMO_PROVIDERS)
        self.assertTrue(all(i["planner_type"] == "btc" for i in btc))

    def test_iter_scores_with_a_small_page_yields_each_indicator_once_in_order(self) -> None:
        professional = client()
        self.assertIsNotNone(professional.scores(limit=3)["next_cursor"])
        everything = [i["provider_id"] for i in professional.scores(limit=500)["data"]]
        iterated = [i["provider_id"] for i in professional.iter_scores(page_size=3)]
        self.assertEqual(iterated, everything)
        self.assertEqual(len(set(iterated)), DEMO_PROVIDERS)

    def test_iter_scores_keeps_the_filter_on_every_page(self) -> None:
        professional = client()
        expected = [i["provider_id"] for i in professional.scores(planner_type="fiat", limit=500)["data"]]
        self.assertEqual([i["provider_id"] for i in professional.iter_scores("fiat", page_size=1)], expected)

    def test_score_is_the_indicator_the_list_shows(self) -> None:
        professional = client()
        listed = professional.scores(limit=1)["data"][0]
        self.assertEqual(professional.score(listed["provider_id"]), listed)

    def test_history_pages_newest_first_and_iter_history_yields_each_once(self) -> None:
        professional = client()
        changed = next(c for c in client(None).changelog(limit=500)["data"] if c["change_type"] == "SCORE_CHANGE")
        history = professional.history(changed["provider_id"], limit=500)
        self.assertEqual(history["provider_id"], changed["provider_id"])
        self.assertGreaterEqual(len(history["data"]), 2)
        published = [i["published_at"] for i in history["data"]]
        self.assertEqual(published, sorted(published, reverse=True))
        # A publication of the history is the indicator's form, named as such (entry_type "publication").
        self.assertEqual(history["data"][0]["entry_type"], "publication")
        self.assertEqual(_indicator_of(history["data"][0]), professional.score(changed["provider_id"]))
        iterated = [i["risk_indicator_id"] for i in professional.iter_history(changed["provider_id"], page_size=1)]
        self.assertEqual(iterated, [i["risk_indicator_id"] for i in history["data"]])

    def test_methodology_is_the_current_framework_and_version_1_0_is_the_same(self) -> None:
        professional = client()
        current = professional.methodology()
        self.assertEqual(current["framework_version"], "DCRF v1.0")
        self.assertRegex(current["framework_sha256"], r"^[0-9a-f]{64}$")
        self.assertTrue(current["definition"]["criteria"])
        self.assertEqual(professional.methodology("1.0")["framework_sha256"], current["framework_sha256"])

    def test_computation_is_the_package_of_the_indicator_and_its_bytes_parse_to_it(self) -> None:
        enterprise = client("ENTERPRISE")
        indicator = enterprise.scores(limit=1)["data"][0]
        package = enterprise.computation(indicator["risk_indicator_id"])
        self.assertEqual(package["package_format"], "svc.computation-package/1")
        self.assertEqual(package["risk_indicator_id"], indicator["risk_indicator_id"])
        self.assertEqual(package["framework"]["sha256"], enterprise.methodology()["framework_sha256"])
        raw = enterprise.computation_bytes(indicator["risk_indicator_id"])
        self.assertIsInstance(raw, bytes)
        self.assertEqual(json.loads(raw), package)


def _millisecond_before(iso: str) -> str:
    """The instant a millisecond before a stored timestamp (ISO 8601 UTC with milliseconds)."""
    from datetime import datetime, timedelta, timezone

    at = datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc) - timedelta(milliseconds=1)
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


class AsOf(unittest.TestCase):
    """``as_of`` on the demo data's two scoring rounds: each publication counts from its ``published_at``."""

    def publications(self) -> list:
        changed = next(c for c in client(None).changelog(limit=500)["data"] if c["change_type"] == "SCORE_CHANGE")
        entries = client().history(changed["provider_id"], limit=500)["data"]
        return [_indicator_of(e) for e in entries if e.get("entry_type") != "withdrawal"]

    def test_score_as_of_is_the_publication_then_in_force_exactly_from_its_published_at(self) -> None:
        professional = client()
        newer, older = self.publications()[:2]
        provider = newer["provider_id"]
        self.assertEqual(professional.score(provider, as_of=newer["published_at"]), newer)
        self.assertEqual(professional.score(provider, as_of=_millisecond_before(newer["published_at"])), older)
        self.assertEqual(professional.score(provider, as_of=older["published_at"]), older)
        self.assertEqual(professional.score(provider), newer)

    def test_the_lists_as_of_an_instant_hold_the_indicators_then_in_force_and_page_with_it(self) -> None:
        professional = client()
        older = self.publications()[1]
        instant = older["published_at"]
        listed = professional.scores(limit=500, as_of=instant)["data"]
        self.assertIn(older, listed)
        self.assertTrue(all(i["published_at"] <= instant for i in listed))
        ids = [i["provider_id"] for i in listed]
        self.assertEqual([i["provider_id"] for i in professional.iter_scores(page_size=3, as_of=instant)], ids)
        public = client(None).public_scores(as_of=instant)["data"]
        self.assertEqual([p["id"] for p in public], ids)
        self.assertEqual(list(client(None).iter_public_scores(page_size=3, as_of=instant)), public)
        before_any = professional.scores(as_of=_millisecond_before(instant))["data"]
        self.assertNotIn(older["provider_id"], [i["provider_id"] for i in before_any])

    def test_a_bad_as_of_gets_400_naming_it(self) -> None:
        for value in ("last week", "2026-03-31", "2999-01-01T00:00:00Z"):
            with self.subTest(as_of=value):
                with self.assertRaises(SvcApiError) as caught:
                    client().score(self.publications()[0]["provider_id"], as_of=value)
                self.assertEqual((caught.exception.status, caught.exception.code), (400, "invalid_request"))
                self.assertEqual([e["path"] for e in caught.exception.errors], ["query.as_of"])


class Fields(unittest.TestCase):
    """``fields``: only the named top-level fields of each indicator, in the order of the full form."""

    FIELDS = ["risk_band", "provider_id", "final_score"]

    def test_score_and_the_lists_answer_only_the_fields_named_in_the_forms_order(self) -> None:
        professional = client()
        whole = professional.scores(limit=1)["data"][0]
        order = [k for k in whole if k in self.FIELDS]
        picked = professional.score(whole["provider_id"], fields=self.FIELDS)
        self.assertEqual(list(picked), order)
        self.assertEqual(picked, {k: whole[k] for k in order})
        self.assertEqual(professional.score(whole["provider_id"], fields="final_score"), {"final_score": whole["final_score"]})
        page = professional.scores(limit=500, fields=self.FIELDS)["data"]
        self.assertTrue(all(list(item) == order for item in page))
        self.assertEqual(list(professional.iter_scores(page_size=3, fields=self.FIELDS)), page)

    def test_an_unknown_field_is_a_400_naming_it(self) -> None:
        provider = client().scores(limit=1)["data"][0]["provider_id"]
        with self.assertRaises(SvcApiError) as caught:
            client().score(provider, fields=["final_score", "nope"])
        self.assertEqual((caught.exception.status, caught.exception.code), (400, "invalid_request"))
        self.assertEqual([e["path"] for e in caught.exception.errors], ["query.fields"])
        self.assertIn("nope", caught.exception.errors[0]["message"])


class Issuances(unittest.TestCase):
    def test_a_free_key_reads_every_issuance_and_filters_them(self) -> None:
        free = client("FREE")
        everything = free.issuances()["data"]
        self.assertEqual(len(everything), DEMO_ISSUANCES)
        bonds = free.issuances(type="bond")["data"]
        self.assertTrue(bonds)
        self.assertTrue(all(i["type"] == "bond" for i in bonds))
        announced = free.issuances(status="ANNOUNCED")["data"]
        self.assertTrue(announced)
        self.assertTrue(all(i["status"] == "ANNOUNCED" for i in announced))
        both = free.issuances(status="PRICING", type="preferred_share")["data"]
        self.assertTrue(all(i["status"] == "PRICING" and i["type"] == "preferred_share" for i in both))

    def test_iter_issuances_with_a_small_page_yields_each_issuance_once(self) -> None:
        free = client("FREE")
        everything = [i["id"] for i in free.issuances()["data"]]
        self.assertEqual([i["id"] for i in free.iter_issuances(page_size=3)], everything)
        bonds = [i["id"] for i in free.issuances(type="bond")["data"]]
        self.assertEqual([i["id"] for i in free.iter_issuances(type="bond", page_size=1)], bonds)


class Analysis(unittest.TestCase):
    def test_search_finds_providers_by_part_of_their_name(self) -> None:
        found = client().search("sats")
        self.assertEqual(found["query"], "sats")
        self.assertTrue(found["data"])
        self.assertTrue(all("sats" in p["name"].lower() for p in found["data"]))
        self.assertEqual(len(client().search("demo", limit=2)["data"]), 2)
        self.assertTrue(all(p["planner_type"] == "fiat" for p in client().search("demo", "fiat")["data"]))

    def test_compare_sets_providers_side_by_side_in_the_order_given(self) -> None:
        professional = client()
        ids = [i["provider_id"] for i in professional.scores(limit=3)["data"]]
        comparison = professional.compare(ids)
        self.assertEqual([p["provider_id"] for p in comparison["providers"]], ids)
        self.assertTrue(all(len(m["scores"]) == 3 for m in comparison["modules"]))
        self.assertEqual([i["provider_id"] for i in comparison["indicators"]], ids)

    def test_export_csv_has_a_header_and_one_row_per_provider(self) -> None:
        professional = client()
        rows = list(csv.reader(io.StringIO(professional.export_csv())))
        self.assertEqual(rows[0][:2], ["provider_id", "name"])
        self.assertEqual(len(rows), 1 + DEMO_PROVIDERS)
        btc = list(csv.reader(io.StringIO(professional.export_csv(planner_type="btc"))))
        self.assertEqual(len(btc) - 1, len(professional.scores(planner_type="btc", limit=500)["data"]))

    def test_portfolio_weighs_the_holdings_by_amount(self) -> None:
        professional = client()
        first, second = professional.scores(limit=2)["data"]
        scored = professional.portfolio({first["provider_id"]: 100, second["provider_id"]: 300})
        self.assertEqual(scored["total_amount"], 400)
        expected = (first["final_score"] * 100 + second["final_score"] * 300) / 400
        self.assertAlmostEqual(scored["portfolio_score"], expected, places=1)
        self.assertEqual({h["provider_id"] for h in scored["holdings"]}, {first["provider_id"], second["provider_id"]})
        as_list = professional.portfolio([{"provider_id": first["provider_id"], "amount": 1}])
        self.assertEqual(as_list["portfolio_score"], first["final_score"])

    def test_portfolio_memo_is_markdown_naming_the_holdings(self) -> None:
        professional = client()
        holding = professional.scores(limit=1)["data"][0]
        memo = professional.portfolio_memo({holding["provider_id"]: 1000})
        self.assertIn(holding["name"], memo)
        self.assertIn("<html", professional.portfolio_memo({holding["provider_id"]: 1000}, format="html").lower())

    def test_what_if_recomputes_with_an_input_changed_and_stores_nothing(self) -> None:
        professional = client()
        indicator = professional.scores(limit=1)["data"][0]
        answer = professional.what_if(indicator["provider_id"], {"collateral_coverage_ratio": 0.5})
        self.assertIs(answer["stored"], False)
        self.assertEqual(answer["provider_id"], indicator["provider_id"])
        self.assertEqual(answer["base"]["risk_indicator_id"], indicator["risk_indicator_id"])
        self.assertIn("collateral_coverage_ratio", [c["input_key"] for c in answer["changes"]["criteria"]])
        self.assertEqual(professional.score(indicator["provider_id"]), indicator)

    def test_memo_is_markdown_by_default_and_html_on_request(self) -> None:
        professional = client()
        indicator = professional.scores(limit=1)["data"][0]
        self.assertIn(indicator["name"], professional.memo(indicator["provider_id"]))
        self.assertIn("<html", professional.memo(indicator["provider_id"], format="html").lower())

    def test_evidence_schedule_gives_the_dates_the_indicator_changes_within_days_of_today(self) -> None:
        professional = client()
        indicator = professional.scores(limit=1)["data"][0]
        year = professional.evidence_schedule(indicator["provider_id"])
        self.assertEqual(year["provider_id"], indicator["provider_id"])
        self.assertEqual(year["risk_indicator_id"], indicator["risk_indicator_id"])
        self.assertEqual((year["days"], year["current"]["date"]), (365, year["start_date"]))

        def day(text: str) -> int:
            return datetime.date.fromisoformat(text).toordinal()

        self.assertEqual(day(year["end_date"]) - day(year["start_date"]), 365)
        for entry in year["entries"]:
            self.assertTrue(day(year["start_date"]) < day(entry["date"]) <= day(year["end_date"]))
            self.assertTrue(entry["reason_codes"])
            self.assertTrue(entry["reason"].endswith("."))
        week = professional.evidence_schedule(indicator["provider_id"], days=7)
        self.assertEqual(day(week["end_date"]) - day(week["start_date"]), 7)
        self.assertEqual(week["entries"], [e for e in year["entries"] if day(e["date"]) <= day(week["end_date"])])
        with self.assertRaises(SvcApiError) as caught:
            professional.evidence_schedule(indicator["provider_id"], days=731)
        self.assertEqual(caught.exception.errors, [{"path": "query.days", "message": "must be at most 730"}])
        with self.assertRaises(SvcApiError) as caught:
            professional.evidence_schedule(UNKNOWN_PROVIDER)
        self.assertEqual((caught.exception.status, caught.exception.code), (404, "not_found"))


class RatingActions(unittest.TestCase):
    def test_the_feed_pages_newest_first_filters_and_each_action_has_a_statement(self) -> None:
        anonymous = client(None)
        page = anonymous.rating_actions(limit=5)
        self.assertEqual(len(page["data"]), 5)
        self.assertIsNotNone(page["next_cursor"])
        everything = list(anonymous.iter_rating_actions(page_size=7))
        self.assertEqual(everything[:5], page["data"])
        self.assertEqual(
            [a["effective_at"] for a in everything], sorted((a["effective_at"] for a in everything), reverse=True)
        )
        # The demo has each kind a subscriber asks about.
        kinds = {a["type"] for a in everything}
        for kind in ("NEW", "UPGRADE", "DOWNGRADE", "WITHDRAW", "REINSTATE", "WATCH_PLACED", "OUTLOOK_CHANGED"):
            self.assertIn(kind, kinds)
        watched = anonymous.rating_actions(type="WATCH_PLACED")["data"][0]
        self.assertEqual(watched["watch"]["direction"] if watched["watch"] else None, "NEGATIVE")
        self.assertTrue(watched["rationale"])
        self.assertNotEqual(watched["proposed_by"], watched["approved_by"])
        mine = anonymous.rating_actions(provider_id=watched["provider_id"])["data"]
        self.assertTrue(all(a["provider_id"] == watched["provider_id"] for a in mine))
        statement = anonymous.rating_action_statement(watched["id"])
        self.assertEqual(statement["statement"]["type"], "rating_action")
        self.assertEqual(statement["statement"]["action"]["id"], watched["id"])
        # Any statement by its hash; the provider's chain walks back through prev_statement_sha256 to its first.
        self.assertEqual(anonymous.statement(statement["statement_sha256"]), statement)
        walked = statement
        while walked["statement"]["prev_statement_sha256"] is not None:
            walked = anonymous.statement(walked["statement"]["prev_statement_sha256"])
            self.assertEqual(walked["statement"]["provider_id"], watched["provider_id"])
        self.assertEqual(walked["statement"]["type"], "publication")
        self.assertIn("<feed", anonymous.rating_actions_atom())
        # The forms carry the outlook and watch in force.
        detail = client().score(watched["provider_id"])
        self.assertEqual(detail["watch"], watched["watch"])
        with self.assertRaises(SvcApiError) as caught:
            anonymous.rating_actions(type="PROMOTED")
        self.assertEqual([e["path"] for e in caught.exception.errors], ["query.type"])


class TrackRecord(unittest.TestCase):
    def test_transitions_and_band_counts_answer_json_and_csv_without_a_key(self) -> None:
        anonymous = client(None)
        counts = anonymous.band_counts()
        self.assertEqual(sum(b["count"] for b in counts["bands"]), counts["total"])
        self.assertEqual([b["band"] for b in counts["bands"]], ["LOW", "MEDIUM", "ELEVATED", "HIGH", "SEVERE"])
        self.assertEqual(anonymous.band_counts("2026-04-01")["total"], 0)
        matrix = anonymous.transitions("2026-04-01")
        self.assertEqual(matrix["from"], "2026-04-01T23:59:59.999Z")
        self.assertEqual(matrix["columns"][-1], "WITHDRAWN")
        self.assertEqual(matrix["summary"]["rated_at_from"], 0)
        self.assertEqual(matrix["summary"]["rated_since"], counts["total"])
        self.assertTrue(anonymous.transitions_csv("2026-04-01").startswith("from,to,band,total,LOW,"))
        self.assertTrue(anonymous.band_counts_csv().startswith("as_of,band,count,share\r\n"))
        with self.assertRaises(SvcApiError) as caught:
            anonymous.transitions("2026-05-01", "2026-04-15")
        self.assertEqual([e["path"] for e in caught.exception.errors], ["query.from"])


class Errors(unittest.TestCase):
    def test_no_key_gets_401_missing_api_key_with_the_problem_fields(self) -> None:
        with self.assertRaises(SvcApiError) as caught:
            client(None).scores()
        error = caught.exception
        self.assertEqual((error.status, error.code, error.title), (401, "missing_api_key", "Missing API key"))
        self.assertEqual(error.instance, "/api/v1/scores")
        self.assertEqual(error.errors, [])
        assert_problem_fields(self, error)
        self.assertEqual((error.method, error.url), ("GET", f"{SERVICE.url}/api/v1/scores"))
        said = f"GET {SERVICE.url}/api/v1/scores answered 401 missing_api_key: {error.detail}"
        self.assertEqual(str(error), f"{said} (request {error.request_id})")

    def test_an_unknown_key_gets_401_invalid_api_key(self) -> None:
        with self.assertRaises(SvcApiError) as caught:
            Client(SERVICE.url, api_key="svc_live_not-a-key").issuances()
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "invalid_api_key"))
        assert_problem_fields(self, caught.exception)

    def test_a_free_key_gets_403_on_the_scores_list_naming_the_tier_required(self) -> None:
        with self.assertRaises(SvcApiError) as caught:
            client("FREE").scores()
        error = caught.exception
        self.assertEqual((error.status, error.code, error.required_tier), (403, "insufficient_tier", "PROFESSIONAL"))
        assert_problem_fields(self, error)

    def test_a_professional_key_gets_403_on_computation_packages(self) -> None:
        indicator = client().scores(limit=1)["data"][0]
        with self.assertRaises(SvcApiError) as caught:
            client().computation(indicator["risk_indicator_id"])
        self.assertEqual((caught.exception.status, caught.exception.required_tier), (403, "ENTERPRISE"))

    def test_an_unknown_provider_gets_404_not_found(self) -> None:
        for call in (lambda: client().score(UNKNOWN_PROVIDER), lambda: client().history(UNKNOWN_PROVIDER)):
            with self.assertRaises(SvcApiError) as caught:
                call()
            self.assertEqual((caught.exception.status, caught.exception.code), (404, "not_found"))
            self.assertIn(UNKNOWN_PROVIDER, caught.exception.detail)
            assert_problem_fields(self, caught.exception)

    def test_an_unknown_computation_id_gets_404(self) -> None:
        with self.assertRaises(SvcApiError) as caught:
            client("ENTERPRISE").computation("ri_000000000000000000000000")
        self.assertEqual(caught.exception.code, "not_found")

    def test_a_bad_query_gets_400_listing_every_invalid_value(self) -> None:
        with self.assertRaises(SvcApiError) as caught:
            client().scores(limit=0)
        error = caught.exception
        self.assertEqual((error.status, error.code), (400, "invalid_request"))
        self.assertEqual(error.errors, [{"path": "query.limit", "message": "must be at least 1"}])
        assert_problem_fields(self, error)

    def test_a_bad_cursor_a_bad_id_and_an_unknown_version_get_400_naming_the_value(self) -> None:
        cases = [
            (lambda: client().scores(cursor="not a cursor"), "query.cursor"),
            (lambda: client().score("not-a-uuid"), "path.providerId"),
            (lambda: client().methodology("9.9"), "query.version"),
            (lambda: client().compare([UNKNOWN_PROVIDER]), "query.ids"),
            (lambda: client().search(" "), "query.q"),
            (lambda: client(None).changelog(since="2026-02-30"), "query.since"),
        ]
        for call, path in cases:
            with self.subTest(path=path):
                with self.assertRaises(SvcApiError) as caught:
                    call()
                self.assertEqual(caught.exception.code, "invalid_request")
                self.assertIn(path, [e["path"] for e in caught.exception.errors])

    def test_an_invalid_body_gets_400_naming_the_field(self) -> None:
        with self.assertRaises(SvcApiError) as caught:
            client(None).request_score("x", contact_email="not an email")
        paths = {e["path"] for e in caught.exception.errors}
        self.assertEqual(paths, {"body.provider_name", "body.contact_email"})

    def test_a_spent_limit_gets_429_with_retry_after_and_no_long_wait(self) -> None:
        spent = Client(SERVICE.url, api_key=SERVICE.create_key("FREE"), max_retry_wait=5)
        for _ in range(100):  # a FREE key's hourly budget
            spent.issuances(limit=1)
        started = time.monotonic()
        with self.assertRaises(SvcApiError) as caught:
            spent.issuances(limit=1)
        error = caught.exception
        self.assertEqual((error.status, error.code), (429, "rate_limited"))
        assert error.retry_after is not None
        self.assertGreater(error.retry_after, 5)  # longer than max_retry_wait: raised at once, not slept on
        self.assertLess(time.monotonic() - started, 2)
        assert_problem_fields(self, error)

    def test_no_answer_raises_svc_connection_error(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        with self.assertRaises(SvcNetworkError) as caught:
            Client(f"http://127.0.0.1:{port}", timeout=2).status()
        error = caught.exception
        self.assertEqual((error.reason, error.method), ("network", "GET"))
        self.assertEqual(error.url, f"http://127.0.0.1:{port}/api/v1/status")
        self.assertIsInstance(error.__cause__, OSError)


if __name__ == "__main__":
    unittest.main()
