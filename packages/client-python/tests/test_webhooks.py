"""Webhook signatures: fixed vectors made with other implementations, then a real delivery from the service to a
receiver on 127.0.0.1, registered and pinged through the client, verified with the workspace's secret."""

from __future__ import annotations

import json
import time
import unittest
from email.message import Message

import live_service  # first: puts the package's src folder on sys.path

from svc_client import (
    Client,
    SvcApiError,
    WebhookVerificationError,
    verify_standard_webhook,
    verify_webhook_signature,
)
from svc_client.types import WebhookDelivery

SERVICE = live_service.LiveService()


def setUpModule() -> None:
    SERVICE.start()


def tearDownModule() -> None:
    SERVICE.stop()


# x-svc-signature made with Node.js's crypto: createHmac('sha256', utf8(SECRET)).update(BODY).digest('hex').
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
BODY = (
    '{"id":"evt_1","type":"ping","created_at":"2026-11-23T00:00:00.000Z",'
    '"data":{"webhook_id":"wh_1","message":"café"}}'
).encode("utf-8")
SIGNATURE = "7701304c85efb5d2de79b137cb4e48db2f9bb6f99ade3c03d80c317f13362c6c"

# The Standard Webhooks specification's own test vector.
STANDARD_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
STANDARD_TIMESTAMP = 1614265330
STANDARD_BODY = b'{"test": 2432232314}'
STANDARD_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


class SignatureVectors(unittest.TestCase):
    def test_the_signature_of_the_exact_bytes_verifies(self) -> None:
        self.assertTrue(verify_webhook_signature(SECRET, BODY, SIGNATURE))
        self.assertTrue(verify_webhook_signature(SECRET, bytearray(BODY), SIGNATURE.upper()))
        self.assertTrue(verify_webhook_signature(SECRET, BODY.decode("utf-8"), SIGNATURE))

    def test_a_changed_body_a_changed_secret_or_a_malformed_signature_does_not(self) -> None:
        self.assertFalse(verify_webhook_signature(SECRET, BODY.replace(b"caf\xc3\xa9", b"cafe"), SIGNATURE))
        self.assertFalse(verify_webhook_signature(SECRET + "x", BODY, SIGNATURE))
        self.assertFalse(verify_webhook_signature("", BODY, SIGNATURE))
        re_serialised = json.dumps(json.loads(BODY)).encode()
        self.assertFalse(verify_webhook_signature(SECRET, re_serialised, SIGNATURE))
        for malformed in (None, "", "zz" * 32, SIGNATURE[:-2], SIGNATURE + "00", "sha256=" + SIGNATURE):
            self.assertFalse(verify_webhook_signature(SECRET, BODY, malformed), malformed)

    def test_during_a_rotation_either_signature_verifies(self) -> None:
        other = "ab" * 32
        self.assertTrue(verify_webhook_signature(SECRET, BODY, [other, SIGNATURE]))
        self.assertTrue(verify_webhook_signature(SECRET, BODY, [SIGNATURE, None]))
        self.assertTrue(verify_webhook_signature(SECRET, BODY, f"{other}, {SIGNATURE}"))
        self.assertFalse(verify_webhook_signature(SECRET, BODY, [other, None]))
        self.assertFalse(verify_webhook_signature(SECRET, BODY, []))
        self.assertFalse(verify_webhook_signature(SECRET, BODY, [other] * 10 + [SIGNATURE]))

    def test_wrong_argument_types_are_programmer_errors(self) -> None:
        with self.assertRaises(TypeError):
            verify_webhook_signature(None, BODY, SIGNATURE)  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            verify_webhook_signature(SECRET, {"id": "evt_1"}, SIGNATURE)  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            verify_webhook_signature(SECRET, BODY, 42)  # type: ignore[arg-type]

    def test_the_standard_webhooks_vector_verifies_within_the_tolerance_only(self) -> None:
        headers = {
            "Webhook-Id": STANDARD_ID,
            "webhook-timestamp": str(STANDARD_TIMESTAMP),
            "webhook-signature": f"v1,bm90IHRoaXMgb25lIGF0IGFsbCBub3QgdGhpcyBvbmU= {STANDARD_SIGNATURE}",
        }
        with self.assertRaises(WebhookVerificationError) as caught:
            verify_standard_webhook(SECRET, STANDARD_BODY, headers, now=lambda: STANDARD_TIMESTAMP + 10)
        # The vector's body is not an event; reaching that check means the signature and the timestamp passed.
        self.assertEqual(caught.exception.reason, "invalid_payload")
        with self.assertRaises(WebhookVerificationError) as caught:
            verify_standard_webhook(SECRET, STANDARD_BODY, headers, now=lambda: STANDARD_TIMESTAMP + 301)
        self.assertEqual(caught.exception.reason, "timestamp_out_of_tolerance")
        with self.assertRaises(WebhookVerificationError) as caught:
            verify_standard_webhook(SECRET, STANDARD_BODY + b" ", headers, now=lambda: STANDARD_TIMESTAMP)
        self.assertEqual(caught.exception.reason, "invalid_signature")
        with self.assertRaises(WebhookVerificationError) as caught:
            verify_standard_webhook("whsec_not base64!", STANDARD_BODY, headers, now=lambda: STANDARD_TIMESTAMP)
        self.assertEqual(caught.exception.reason, "invalid_secret")
        with self.assertRaises(WebhookVerificationError) as caught:
            verify_standard_webhook(SECRET, STANDARD_BODY, {"webhook-id": STANDARD_ID})
        self.assertEqual(caught.exception.reason, "missing_header")


class Deliveries(unittest.TestCase):
    def test_a_ping_from_the_service_verifies_with_the_workspace_secret_and_not_when_tampered(self) -> None:
        client = Client(SERVICE.url, api_key=SERVICE.keys["PROFESSIONAL"])
        with live_service.WebhookReceiver() as receiver:
            endpoint = client.create_webhook(receiver.url, ["risk_indicator.published"], description="python tests")
            self.addCleanup(client.delete_webhook, endpoint["id"])
            self.assertEqual(endpoint["url"], receiver.url)
            self.assertEqual(endpoint["events"], ["risk_indicator.published"])
            self.assertEqual(endpoint["status"], "active")
            self.assertIn(endpoint["id"], [w["id"] for w in client.list_webhooks()["data"]])

            queued = client.test_webhook(endpoint["id"])
            self.assertEqual((queued["webhook_id"], queued["event_type"]), (endpoint["id"], "ping"))
            delivery = receiver.next_delivery()

            signature = delivery.headers["x-svc-signature"]
            self.assertTrue(verify_webhook_signature(SERVICE.webhook_secret, delivery.body, signature))
            tampered = delivery.body.replace(b'"ping"', b'"pong"')
            self.assertNotEqual(tampered, delivery.body)
            self.assertFalse(verify_webhook_signature(SERVICE.webhook_secret, tampered, signature))
            self.assertFalse(verify_webhook_signature(SERVICE.webhook_secret + "x", delivery.body, signature))
            previous = delivery.headers.get("x-svc-signature-previous")
            self.assertTrue(verify_webhook_signature(SERVICE.webhook_secret, delivery.body, [signature, previous]))

            message = Message()
            for name, value in delivery.headers.items():
                message[name] = value
            event = verify_standard_webhook(SERVICE.webhook_secret, delivery.body, message)
            self.assertEqual(event["type"], "ping")
            self.assertEqual(event["id"], queued["event_id"])
            self.assertEqual(event["data"]["webhook_id"], endpoint["id"])
            with self.assertRaises(WebhookVerificationError):
                verify_standard_webhook(SERVICE.webhook_secret, tampered, delivery.headers)

            logged = self.settled(client, endpoint["id"], queued["id"])
            self.assertEqual(logged["status"], "delivered")
            self.assertEqual(logged["attempt_log"][0]["status_code"], 200)

            again = client.redeliver(endpoint["id"], queued["id"])
            self.assertEqual((again["event_id"], again["redelivery_of"]), (queued["event_id"], queued["id"]))
            redelivered = receiver.next_delivery()
            self.assertEqual(redelivered.body, delivery.body)
            self.assertTrue(verify_webhook_signature(SERVICE.webhook_secret, redelivered.body, signature))
            self.settled(client, endpoint["id"], again["id"])

            logged_ids = [d["id"] for d in client.iter_deliveries(endpoint["id"], page_size=1)]
            self.assertEqual(sorted(logged_ids), sorted([queued["id"], again["id"]]))
            self.assertEqual(len(client.deliveries(endpoint["id"], status="delivered")["data"]), 2)

    def test_delete_webhook_removes_the_endpoint(self) -> None:
        client = Client(SERVICE.url, api_key=SERVICE.keys["PROFESSIONAL"])
        endpoint = client.create_webhook("http://127.0.0.1:65535/gone", ["issuance.updated", "methodology.published"])
        self.assertIsNone(client.delete_webhook(endpoint["id"]))
        self.assertNotIn(endpoint["id"], [w["id"] for w in client.list_webhooks()["data"]])
        with self.assertRaises(SvcApiError) as caught:
            client.delete_webhook(endpoint["id"])
        self.assertEqual(caught.exception.code, "not_found")

    def test_port_0_and_system_ports_are_refused_with_400_naming_the_url(self) -> None:
        client = Client(SERVICE.url, api_key=SERVICE.keys["PROFESSIONAL"])
        for url, reason in [
            ("http://127.0.0.1:0/hook", "port 0 is not a port a receiver can listen on"),
            ("http://127.0.0.1:22/hook", "port 22 is a system port (below 1024)"),
        ]:
            with self.assertRaises(SvcApiError) as caught:
                client.create_webhook(url, ["risk_indicator.published"])
            self.assertEqual(caught.exception.code, "invalid_request")
            self.assertEqual([e["path"] for e in caught.exception.errors], ["body.url"])
            self.assertIn(reason, caught.exception.errors[0]["message"])

    def test_a_description_with_a_control_character_is_refused_naming_it(self) -> None:
        client = Client(SERVICE.url, api_key=SERVICE.keys["PROFESSIONAL"])
        with self.assertRaises(SvcApiError) as caught:
            client.create_webhook("https://93.184.216.34/hook", ["risk_indicator.published"], "ops\x1b[2J")
        self.assertEqual(caught.exception.code, "invalid_request")
        self.assertEqual([e["path"] for e in caught.exception.errors], ["body.description"])
        self.assertIn("found U+001B at character 4", caught.exception.errors[0]["message"])

    def test_a_private_address_is_refused_with_400_naming_the_url(self) -> None:
        client = Client(SERVICE.url, api_key=SERVICE.keys["PROFESSIONAL"])
        with self.assertRaises(SvcApiError) as caught:
            client.create_webhook("https://10.0.0.5/hook", ["risk_indicator.published"])
        self.assertEqual(caught.exception.code, "invalid_request")
        self.assertEqual([e["path"] for e in caught.exception.errors], ["body.url"])

    def test_a_free_key_gets_403_on_webhooks(self) -> None:
        with self.assertRaises(SvcApiError) as caught:
            Client(SERVICE.url, api_key=SERVICE.keys["FREE"]).list_webhooks()
        self.assertEqual((caught.exception.status, caught.exception.required_tier), (403, "PROFESSIONAL"))

    def settled(self, client: Client, webhook_id: str, delivery_id: str, timeout: float = 20) -> WebhookDelivery:
        """The delivery once its attempt is logged (the receiver may hear it before the log is written)."""
        deadline = time.monotonic() + timeout
        while True:
            logged = next(d for d in client.iter_deliveries(webhook_id) if d["id"] == delivery_id)
            if logged["status"] != "pending" or time.monotonic() > deadline:
                return logged
            time.sleep(0.1)


if __name__ == "__main__":
    unittest.main()
