"""The client's own HTTP behaviour: retries, Retry-After, redirects, encoding, and answers the real service would
only give under failure (a 503, an HTML error page). These need a server whose answers the test chooses, so they
use a scripted one on 127.0.0.1; everything else is tested against the real service."""

from __future__ import annotations

import json
import time
import unittest
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import live_service  # noqa: F401  (puts the package's src folder on sys.path)
from scripted_server import OK, Answer, ScriptedServer, problem, unavailable

from svc_client import UNEXPECTED_RESPONSE, Client, SvcApiError, SvcNetworkError, __version__
from svc_client.errors import parse_retry_after
from svc_client.transport import encode_query


class ScriptedTestCase(unittest.TestCase):
    def serve(self, *answers: Answer) -> ScriptedServer:
        server = ScriptedServer(*answers)
        self.addCleanup(server.close)
        return server


class Retries(ScriptedTestCase):
    def test_a_get_refused_with_503_is_tried_again_after_retry_after(self) -> None:
        server = self.serve(unavailable("0"), OK)
        self.assertEqual(Client(server.url).status(), {"status": "ok"})
        self.assertEqual(len(server.seen), 2)

    def test_a_get_refused_with_429_waits_the_seconds_retry_after_gives(self) -> None:
        limited = (429, {"retry-after": "1"}, problem(429, "rate_limited", retry_after_seconds=1))
        server = self.serve(limited, OK)
        started = time.monotonic()
        Client(server.url).status()
        self.assertGreaterEqual(time.monotonic() - started, 0.9)
        self.assertEqual(len(server.seen), 2)

    def test_a_retry_after_longer_than_max_retry_wait_is_raised_at_once(self) -> None:
        server = self.serve(unavailable("3600"), OK)
        started = time.monotonic()
        with self.assertRaises(SvcApiError) as caught:
            Client(server.url, max_retry_wait=30).status()
        self.assertEqual((caught.exception.status, caught.exception.retry_after), (503, 3600))
        self.assertLess(time.monotonic() - started, 1)
        self.assertEqual(len(server.seen), 1)

    def test_retries_stop_after_max_retries(self) -> None:
        server = self.serve(unavailable("0"))
        with self.assertRaises(SvcApiError) as caught:
            Client(server.url, max_retries=3).status()
        self.assertEqual(caught.exception.code, "unavailable")
        self.assertEqual(len(server.seen), 4)
        server.seen.clear()
        with self.assertRaises(SvcApiError):
            Client(server.url, max_retries=0).status()
        self.assertEqual(len(server.seen), 1)

    def test_without_retry_after_the_wait_backs_off_from_half_a_second(self) -> None:
        server = self.serve(unavailable(None), OK)
        started = time.monotonic()
        Client(server.url).status()
        self.assertGreaterEqual(time.monotonic() - started, 0.45)
        self.assertEqual(len(server.seen), 2)

    def test_a_post_is_never_retried(self) -> None:
        server = self.serve(unavailable("0"), OK)
        with self.assertRaises(SvcApiError):
            Client(server.url).request_score("Example Lending")
        self.assertEqual(len(server.seen), 1)

    def test_other_errors_are_not_retried(self) -> None:
        server = self.serve((500, {"content-type": "application/problem+json"}, problem(500, "internal_error")), OK)
        with self.assertRaises(SvcApiError) as caught:
            Client(server.url).status()
        self.assertEqual(caught.exception.code, "internal_error")
        self.assertEqual(len(server.seen), 1)


class RetryAfter(unittest.TestCase):
    def test_retry_after_reads_seconds_and_http_dates(self) -> None:
        now = datetime(2026, 11, 23, 9, 0, 0, tzinfo=timezone.utc)
        self.assertEqual(parse_retry_after("120", now), 120)
        self.assertEqual(parse_retry_after(format_datetime(now + timedelta(seconds=90), usegmt=True), now), 90)
        self.assertEqual(parse_retry_after(format_datetime(now - timedelta(seconds=90), usegmt=True), now), 0)
        for unreadable in (None, "", "soon", "-5", "1.5", "\u00b2"):
            self.assertIsNone(parse_retry_after(unreadable, now), unreadable)

    def test_retry_after_seconds_in_the_body_is_used_without_the_header(self) -> None:
        server = ScriptedServer((429, {}, problem(429, "rate_limited", retry_after_seconds=7200)))
        self.addCleanup(server.close)
        with self.assertRaises(SvcApiError) as caught:
            Client(server.url).status()
        self.assertEqual(caught.exception.retry_after, 7200)


class Answers(ScriptedTestCase):
    def test_an_error_page_that_is_not_problem_details_keeps_the_status_and_the_start_of_the_body(self) -> None:
        page = b"<html><body>502 Bad Gateway from the proxy</body></html>"
        server = self.serve((502, {"content-type": "text/html", "x-request-id": "proxy-7"}, page))
        with self.assertRaises(SvcApiError) as caught:
            Client(server.url).status()
        error = caught.exception
        self.assertEqual((error.status, error.code, error.title), (502, UNEXPECTED_RESPONSE, "Bad Gateway"))
        self.assertIn("502 Bad Gateway from the proxy", error.detail)
        self.assertEqual((error.request_id, error.problem, error.errors), ("proxy-7", None, []))

    def test_a_success_whose_body_is_not_json_is_an_unexpected_response(self) -> None:
        server = self.serve((200, {"content-type": "text/html"}, b"<html>Sign in to the hotel wifi</html>"))
        with self.assertRaises(SvcApiError) as caught:
            Client(server.url).status()
        self.assertEqual((caught.exception.status, caught.exception.code), (200, UNEXPECTED_RESPONSE))
        self.assertIn("hotel wifi", caught.exception.detail)

    def test_an_answer_slower_than_the_timeout_is_a_network_error_saying_timeout(self) -> None:
        slow = ScriptedServer(OK, delay=1)
        self.addCleanup(slow.close)
        with self.assertRaises(SvcNetworkError) as caught:
            Client(slow.url, timeout=0.2).status()
        self.assertEqual(caught.exception.reason, "timeout")
        self.assertIn("no answer within 0.2 s", str(caught.exception))

    def test_a_redirect_is_not_followed_so_the_key_stays_with_the_api(self) -> None:
        elsewhere = self.serve(OK)
        server = self.serve((302, {"location": f"{elsewhere.url}/steal"}, b""))
        with self.assertRaises(SvcApiError) as caught:
            Client(server.url, api_key="svc_live_secret").status()
        self.assertEqual(caught.exception.status, 302)
        self.assertEqual(elsewhere.seen, [])

    def test_a_204_answer_returns_none(self) -> None:
        server = self.serve((204, {}, b""))
        self.assertIsNone(Client(server.url, api_key="k").delete_webhook("wh_0123456789abcdef01234567"))
        self.assertEqual(server.seen[0].method, "DELETE")


class Requests(ScriptedTestCase):
    def test_every_request_carries_the_key_the_user_agent_and_accept(self) -> None:
        server = self.serve(OK)
        Client(server.url, api_key="svc_live_abc").status()
        headers = server.seen[0].headers
        self.assertEqual(headers["x-api-key"], "svc_live_abc")
        self.assertTrue(headers["user-agent"].startswith(f"svc-client-python/{__version__} "))
        self.assertEqual(headers["accept"], "application/json, application/problem+json")

    def test_no_key_sends_no_key_header(self) -> None:
        server = self.serve(OK)
        Client(server.url).status()
        self.assertNotIn("x-api-key", server.seen[0].headers)

    def test_a_body_is_utf8_json_with_its_content_type_and_none_fields_are_left_out(self) -> None:
        server = self.serve((202, {"content-type": "application/json"}, b"{}"))
        Client(server.url).request_score("Café Crédit", planner_type="fiat")
        seen = server.seen[0]
        self.assertEqual((seen.method, seen.path), ("POST", "/api/public/score-request"))
        self.assertEqual(seen.headers["content-type"], "application/json")
        sent = json.loads(seen.body.decode("utf-8"))
        self.assertEqual(sent, {"provider_name": "Café Crédit", "planner_type": "fiat"})

    def test_query_values_are_encoded_and_none_is_left_out(self) -> None:
        self.assertEqual(encode_query({"a": None}), "")
        encoded = encode_query({"q": "a&b c", "limit": 5, "flag": True, "cursor": None})
        self.assertEqual(encoded, "?q=a%26b+c&limit=5&flag=true")
        server = self.serve((200, {"content-type": "application/json"}, b"{}"))
        Client(server.url).search("Sats & Co", limit=3)
        self.assertEqual(server.seen[0].path, "/api/v1/providers/search?q=Sats+%26+Co&limit=3")
        Client(server.url).compare(["a", "b"])
        self.assertEqual(server.seen[1].path, "/api/v1/scores/compare?ids=a%2Cb")

    def test_a_path_value_stays_in_its_segment(self) -> None:
        server = self.serve((200, {"content-type": "application/json"}, b"{}"))
        Client(server.url).score("../../webhooks")
        self.assertEqual(server.seen[0].path, "/api/v1/scores/..%2F..%2Fwebhooks")

    def test_a_base_url_with_a_path_and_a_trailing_slash_is_kept(self) -> None:
        server = self.serve(OK)
        Client(f"{server.url}/svc/").status()
        self.assertEqual(server.seen[0].path, "/svc/api/v1/status")

    def test_a_base_url_that_is_not_http_is_refused(self) -> None:
        for bad in ("scores.example.com", "ftp://scores.example.com", ""):
            with self.assertRaises(ValueError):
                Client(bad)

    def test_compare_refuses_one_string_rather_than_splitting_it_into_letters(self) -> None:
        with self.assertRaises(TypeError):
            Client("http://127.0.0.1:9").compare("id1,id2")


if __name__ == "__main__":
    unittest.main()
