"""``python3 -m svc_client.verify``: RFC 8785 from the RFC's own examples, packages the engine wrote reproduced,
tampered ones refused naming the first difference, bad input refused with exit code 2, the framework, statement and
keys fetched from a service's base URL, and signed statements (signed here with the ``openssl`` command line)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Dict, Optional

import live_service
import test_verify_cross_check as cross_check

from svc_client.verify import NotJson, read_json
from svc_client.verify.canonical import canonical_bytes, canonical_text, number_text

try:
    import cryptography  # noqa: F401

    HAS_CRYPTOGRAPHY = True
except ImportError:
    HAS_CRYPTOGRAPHY = False

WORKED = live_service.REPO / "examples" / "dcrf-1.0" / "worked-example.json"
MULTIPLE_CAPS = live_service.REPO / "examples" / "dcrf-1.0" / "multiple-caps.json"
WORKED_ID = "ri_999362cb4dd093d94a9ac28e"
WORKED_RESULT_SHA256 = "da9344154b21c541db241d642d3030f95364f5c3580d570d79038da38cc1d4ac"


def run_verify(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(live_service.PACKAGE / "src"))
    return subprocess.run(
        [sys.executable, "-m", "svc_client.verify", *args], capture_output=True, text=True, env=env, timeout=60
    )


def double(bits: int) -> float:
    return struct.unpack(">d", bits.to_bytes(8, "big"))[0]


class Canonical(unittest.TestCase):
    def test_numbers_as_rfc_8785_appendix_b_writes_them(self) -> None:
        cases = {
            0x0000000000000000: "0",
            0x8000000000000000: "0",
            0x0000000000000001: "5e-324",
            0x8000000000000001: "-5e-324",
            0x7FEFFFFFFFFFFFFF: "1.7976931348623157e+308",
            0xFFEFFFFFFFFFFFFF: "-1.7976931348623157e+308",
            0x4340000000000000: "9007199254740992",
            0xC340000000000000: "-9007199254740992",
            0x4430000000000000: "295147905179352830000",
            0x44B52D02C7E14AF5: "9.999999999999997e+22",
            0x44B52D02C7E14AF6: "1e+23",
            0x44B52D02C7E14AF7: "1.0000000000000001e+23",
            0x444B1AE4D6E2EF4E: "999999999999999700000",
            0x444B1AE4D6E2EF4F: "999999999999999900000",
            0x444B1AE4D6E2EF50: "1e+21",
            0x3EB0C6F7A0B5ED8C: "9.999999999999997e-7",
            0x3EB0C6F7A0B5ED8D: "0.000001",
            0x41B3DE4355555553: "333333333.3333332",
            0x41B3DE4355555554: "333333333.33333325",
            0x41B3DE4355555555: "333333333.3333333",
            0x4415AF1D78B58C3F: "99999999999999980000",
            0x4415AF1D78B58C40: "100000000000000000000",
        }
        for bits, text in cases.items():
            with self.subTest(bits=hex(bits)):
                self.assertEqual(number_text(double(bits)), text)

    def test_decimals_read_from_json_are_written_as_their_values(self) -> None:
        document = read_json(b'[7.0, 1.50, 0.0000001, 1E30, -0, 4.50, 2e-3, 100]')
        self.assertEqual(canonical_text(document), "[7,1.5,1e-7,1e+30,0,4.5,0.002,100]")

    def test_members_sorted_by_utf16_code_units_and_strings_minimally_escaped(self) -> None:
        names = ["\u20ac", "\r", "\ufb33", "1", "\U0001F600", "\u0080", "\u00f6"]
        text = canonical_text({name: 0 for name in names})
        order = ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001F600", "\ufb33"]
        self.assertEqual(text, "{" + ",".join(json.dumps(n, ensure_ascii=False).replace("\\r", "\\r") + ":0" for n in order) + "}")
        self.assertEqual(canonical_text("\u0000\u001f\u007f\u2028\b\t\n\f\r\"\\/é"), '"\\u0000\\u001f\u007f\u2028\\b\\t\\n\\f\\r\\"\\\\/é"')
        self.assertEqual(canonical_bytes({"b": [True, False, None], "a": "€"}), '{"a":"€","b":[true,false,null]}'.encode())

    def test_what_is_not_i_json_is_refused(self) -> None:
        for bad in (b'{"a":1,"a":2}', b"[NaN]", b"\xef\xbb\xbf{}", b"[1", b"\xff", b'{"a":'):
            with self.subTest(bad=bad):
                with self.assertRaises(NotJson):
                    read_json(bad)
        with self.assertRaises(NotJson):
            canonical_bytes(read_json(b'["\\ud800"]'))


class Packages(unittest.TestCase):
    """Packages the engine wrote: reproduced, and refused once tampered."""

    folder: Path
    framework: Path

    @classmethod
    def setUpClass(cls) -> None:
        cls._tmp = tempfile.TemporaryDirectory(prefix="svc-verify-")
        cls.folder = Path(cls._tmp.name)
        cross_check.generate(cls.folder, 1, count=0, golden=[WORKED, MULTIPLE_CAPS])
        cls.framework = cls.folder / "framework-1.0.json"

    @classmethod
    def tearDownClass(cls) -> None:
        cls._tmp.cleanup()

    def package(self, name: str = "worked-example.json") -> Dict[str, Any]:
        return read_json((self.folder / f"golden-{name}").read_bytes())

    def write(self, document: Any, name: str = "tampered.json") -> str:
        path = self.folder / "tampered" / name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(document if isinstance(document, bytes) else canonical_bytes(document))
        return str(path)

    def refused(self, package: Dict[str, Any]) -> Dict[str, str]:
        done = run_verify(self.write(package), "--framework", str(self.framework), "--json")
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        answer = json.loads(done.stdout)
        self.assertFalse(answer["reproduced"])
        return answer["difference"]

    def test_an_engine_package_reproduces(self) -> None:
        done = run_verify(str(self.folder / "golden-worked-example.json"), "--framework", str(self.framework))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(
            done.stdout.splitlines()[0], f"reproduced: {WORKED_ID} (DCRF v1.0), result sha256 {WORKED_RESULT_SHA256}"
        )

    def test_the_framework_beside_the_package_is_used_when_none_is_given(self) -> None:
        done = run_verify(str(self.folder / "golden-multiple-caps.json"), "--json")
        self.assertEqual(done.returncode, 0, done.stdout)
        answer = json.loads(done.stdout)
        self.assertEqual(answer["framework_source"], str(self.framework))
        self.assertTrue(answer["canonical"])

    def test_an_indented_copy_reproduces_and_is_said_not_to_be_canonical(self) -> None:
        raw = (self.folder / "golden-worked-example.json").read_bytes()
        indented = json.dumps(json.loads(raw), indent=2).encode()
        done = run_verify(self.write(indented), "--framework", str(self.framework))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("not in canonical form", done.stdout)
        self.assertIn(hashlib.sha256(raw).hexdigest(), done.stdout)

    def test_a_changed_input_value_no_longer_matches_its_hash(self) -> None:
        package = self.package()
        package["inputs"]["inputs"]["collateral_coverage_ratio"]["value"] = read_json(b"1.36")
        difference = self.refused(package)
        self.assertEqual(difference["path"], "inputs_sha256")
        self.assertEqual(difference["found"], json.dumps(self.package()["inputs_sha256"]))

    def test_an_input_value_outside_its_domain_is_named(self) -> None:
        package = self.package()
        package["inputs"]["inputs"]["custody_model"]["value"] = "vault"
        difference = self.refused(package)
        self.assertEqual(difference["path"], "inputs.inputs.custody_model.value")
        self.assertEqual(difference["found"], '"vault"')

    def test_a_changed_step_is_named(self) -> None:
        package = self.package()
        package["steps"]["criteria"][9]["points"] = "65.0000"
        self.assertEqual(
            self.refused(package), {"path": "steps.criteria[9].points", "expected": '"61.2500"', "found": '"65.0000"'}
        )

    def test_a_changed_final_figure_is_named(self) -> None:
        package = self.package()
        package["result"]["final_score"] = "80.00"
        self.assertEqual(self.refused(package), {"path": "result.final_score", "expected": '"78.46"', "found": '"80.00"'})

    def test_a_changed_text_is_named(self) -> None:
        package = self.package()
        modules = package["result"]["score_commentary"]["modules"]
        modules[1]["text"] = modules[1]["text"].replace("17.00", "19.00")
        difference = self.refused(package)
        self.assertEqual(difference["path"], "result.score_commentary.modules[1].text")
        self.assertIn("17.00 of 20 points", difference["expected"])

    def test_a_changed_hash_is_named(self) -> None:
        package = self.package()
        package["result_sha256"] = "0" * 64
        self.assertEqual(
            self.refused(package),
            {"path": "result_sha256", "expected": json.dumps(WORKED_RESULT_SHA256), "found": json.dumps("0" * 64)},
        )

    def test_a_package_naming_another_framework_hash_is_named(self) -> None:
        package = self.package()
        package["framework"]["sha256"] = "f" * 64
        self.assertEqual(self.refused(package)["path"], "framework.sha256")

    def test_a_removed_member_is_named(self) -> None:
        package = self.package()
        del package["result"]["svc_decision_object"]["next_band"]
        self.assertEqual(
            self.refused(package), {"path": "result.svc_decision_object.next_band", "expected": '"LOW"', "found": "(absent)"}
        )

    def test_what_is_not_a_readable_package_exits_2(self) -> None:
        raw = (self.folder / "golden-worked-example.json").read_bytes()
        cases = {
            "truncated.json": (raw[: len(raw) // 2], "not JSON"),
            "text.json": (b"hello", "not JSON"),
            "other.json": (b'{"a":1}', "not a computation package"),
            "array.json": (b"[]", "not a computation package"),
        }
        for name, (content, message) in cases.items():
            with self.subTest(case=name):
                done = run_verify(self.write(content, name), "--framework", str(self.framework))
                self.assertEqual(done.returncode, 2, done.stdout)
                self.assertIn(message, done.stderr)
                self.assertNotIn("Traceback", done.stderr)
        done = run_verify(str(self.folder / "absent.json"))
        self.assertEqual((done.returncode, "cannot read" in done.stderr), (2, True), done.stderr)

    def test_without_a_framework_it_says_that_one_is_needed(self) -> None:
        with tempfile.TemporaryDirectory() as alone:
            path = Path(alone) / "package.json"
            shutil.copy(self.folder / "golden-worked-example.json", path)
            done = run_verify(str(path))
        self.assertEqual(done.returncode, 2)
        self.assertIn("--framework", done.stderr)

    def test_a_framework_that_is_not_one_exits_2(self) -> None:
        bad = self.write(b'{"version":"1.0"}', "not-a-framework.json")
        done = run_verify(str(self.folder / "golden-worked-example.json"), "--framework", bad)
        self.assertEqual(done.returncode, 2)
        self.assertIn("not a framework definition", done.stderr)


class Served(ThreadingHTTPServer):
    """A real HTTP server on 127.0.0.1 answering fixed bytes by path (404 for any other path)."""

    def __init__(self, answers: Dict[str, bytes]) -> None:
        answers_ = answers

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                body = answers_.get(self.path)
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body if body is not None else b'{"status":404}')

            def log_message(self, *args: Any) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.answers = answers
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Statements(unittest.TestCase):
    """Statements signed with the openssl command line, checked with and without a service's base URL."""

    folder: Path
    package_path: Path
    package: Dict[str, Any]
    key: Path
    kid: str
    keys: Dict[str, Any]

    @classmethod
    def setUpClass(cls) -> None:
        if shutil.which("openssl") is None:
            raise unittest.SkipTest("the openssl command line is not installed")
        cls._tmp = tempfile.TemporaryDirectory(prefix="svc-statements-")
        cls.folder = Path(cls._tmp.name)
        cross_check.generate(cls.folder, 1, count=0, golden=[WORKED])
        cls.package_path = cls.folder / "golden-worked-example.json"
        cls.package = read_json(cls.package_path.read_bytes())
        cls.key = cls.folder / "signing.pem"
        subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(cls.key)], check=True, capture_output=True)
        der = subprocess.run(
            ["openssl", "pkey", "-in", str(cls.key), "-pubout", "-outform", "DER"], check=True, capture_output=True
        ).stdout
        raw = der[-32:]
        cls.kid = hashlib.sha256(raw).hexdigest()[:16]
        cls.keys = {
            "keys": [
                {"kty": "OKP", "crv": "Ed25519", "x": b64url(raw), "kid": cls.kid, "use": "sig", "alg": "EdDSA",
                 "status": "active", "not_before": "2026-01-01T00:00:00Z"}
            ]
        }

    @classmethod
    def tearDownClass(cls) -> None:
        cls._tmp.cleanup()

    def statement(self, **changes: Any) -> Dict[str, Any]:
        package_sha256 = hashlib.sha256(self.package_path.read_bytes()).hexdigest()
        statement = {
            "type": "publication",
            "risk_indicator_id": WORKED_ID,
            "provider_id": "7d1f7c1e-3f0e-4b8a-9a51-5b0c0f9a2d11",
            "provider_name": "Example Sats Lending",
            "final_score": 78.46,
            "risk_band": "MEDIUM",
            "framework_version": "DCRF v1.0",
            "framework_sha256": self.package["framework"]["sha256"],
            "inputs_sha256": self.package["inputs_sha256"],
            "result_sha256": self.package["result_sha256"],
            "package_sha256": package_sha256,
            "published_at": "2026-07-01T09:00:00Z",
            "signed_at": "2026-07-01T09:00:00.123456789Z",
            "prev_statement_sha256": None,
        }
        statement.update(changes)
        return statement

    def signed(self, statement: Dict[str, Any], after: Optional[Callable[[Dict[str, Any]], None]] = None) -> Dict[str, Any]:
        message = self.folder / "statement.bin"
        message.write_bytes(canonical_bytes(statement))
        signature = subprocess.run(
            ["openssl", "pkeyutl", "-sign", "-inkey", str(self.key), "-rawin", "-in", str(message)],
            check=True,
            capture_output=True,
        ).stdout
        envelope = {
            "statement": statement,
            "signature": b64url(signature),
            "kid": self.kid,
            "alg": "EdDSA",
            "statement_sha256": hashlib.sha256(message.read_bytes()).hexdigest(),
        }
        if after:  # a forger changes the statement and writes the hash of the new bytes: only the signature tells
            after(envelope["statement"])
            envelope["statement_sha256"] = hashlib.sha256(canonical_bytes(envelope["statement"])).hexdigest()
        return envelope

    def check(self, envelope: Dict[str, Any], keys: Optional[Dict[str, Any]] = None) -> subprocess.CompletedProcess:
        statement_path = self.folder / "envelope.json"
        keys_path = self.folder / "keys.json"
        statement_path.write_text(json.dumps(envelope))
        keys_path.write_text(json.dumps(keys or self.keys))
        return run_verify(
            str(self.package_path), "--statement", str(statement_path), "--keys", str(keys_path), "--json"
        )

    def test_a_statement_naming_the_package_verifies_or_says_it_could_not_be_checked(self) -> None:
        done = self.check(self.signed(self.statement()))
        # Without cryptography the signature cannot be checked: exit 3, never 0 with it unchecked.
        self.assertEqual(done.returncode, 0 if HAS_CRYPTOGRAPHY else 3, done.stdout)
        answer = json.loads(done.stdout)["statement"]
        self.assertTrue(answer["names_package"])
        if HAS_CRYPTOGRAPHY:
            self.assertEqual(answer["signature"], "valid")
        else:
            self.assertEqual(answer["signature"], "not checked")
            self.assertIn("cryptography", answer["note"])

    def test_a_statement_naming_another_package_is_refused(self) -> None:
        done = self.check(self.signed(self.statement(package_sha256="a" * 64)))
        self.assertEqual(done.returncode, 1, done.stdout)
        self.assertEqual(json.loads(done.stdout)["statement"]["difference"]["path"], "statement.package_sha256")

    def test_a_statement_changed_after_signing_does_not_verify(self) -> None:
        envelope = self.signed(self.statement(), after=lambda s: s.update(final_score=99))
        done = self.check(envelope)
        answer = json.loads(done.stdout)["statement"]
        if not HAS_CRYPTOGRAPHY:
            self.assertEqual((done.returncode, answer["signature"]), (3, "not checked"))
            return
        self.assertEqual(done.returncode, 1, done.stdout)
        self.assertEqual(answer["signature"], "invalid")
        self.assertIn("does not verify", answer["note"])

    def test_a_statement_hash_that_is_not_of_its_bytes_is_refused(self) -> None:
        envelope = self.signed(self.statement())
        envelope["statement_sha256"] = "b" * 64
        done = self.check(envelope)
        self.assertEqual(done.returncode, 1, done.stdout)
        self.assertEqual(json.loads(done.stdout)["statement"]["difference"]["path"], "statement_sha256")

    def test_a_retired_key_used_after_its_not_after_is_refused(self) -> None:
        retired = json.loads(json.dumps(self.keys))
        retired["keys"][0].update(status="retired", not_after="2026-06-30T00:00:00Z")
        done = self.check(self.signed(self.statement()), retired)
        self.assertEqual(done.returncode, 1, done.stdout)
        self.assertIn("retired", json.loads(done.stdout)["statement"]["note"])

    def test_everything_fetched_from_the_service_base_url(self) -> None:
        framework = (self.folder / "framework-1.0.json").read_bytes()
        served = Served(
            {
                "/api/public/frameworks/1.0": framework,
                f"/api/public/publications/{WORKED_ID}": json.dumps(self.signed(self.statement())).encode(),
                "/.well-known/svc-signing-keys.json": json.dumps(self.keys).encode(),
            }
        )
        try:
            with tempfile.TemporaryDirectory() as alone:
                path = Path(alone) / "package.json"
                shutil.copy(self.package_path, path)
                done = run_verify(
                    str(path), "--framework", served.url, "--statement", served.url, "--keys", served.url + "/"
                )
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertIn(f"reproduced: {WORKED_ID}", done.stdout)
                self.assertIn("names this package", done.stdout)
                del served.answers["/api/public/frameworks/1.0"]
                unknown = run_verify(str(path), "--framework", served.url)
            self.assertEqual(unknown.returncode, 2)
            self.assertIn("/api/public/frameworks/1.0 answered HTTP 404", unknown.stderr)
        finally:
            served.shutdown()
            served.server_close()


if __name__ == "__main__":
    unittest.main()
