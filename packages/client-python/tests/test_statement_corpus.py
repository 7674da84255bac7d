"""The shared corpus of signed statements (``examples/statements``, written by ``tooling/statement-corpus.mjs``):
genuine, forged and edge-case statements with the exit code the rules of ``docs/auditing.md`` section 8 give each.
``svc verify --statement`` is tested against the same files (apps/cli/src/__tests__/statement-corpus.test.ts), so the
two verifiers cannot disagree. Each case runs the verifier's command line in this process (``main``), with the
package and the framework definition beside it."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import tempfile
import unittest
from pathlib import Path
from typing import Any, Dict, List
from unittest import mock

import live_service  # first: puts the package's src folder on sys.path

from svc_client.verify.__main__ import main
from svc_client.verify.statement import CANNOT_CHECK, instant_key

CORPUS = live_service.REPO / "examples" / "statements"
CASES: List[Dict[str, Any]] = json.loads((CORPUS / "cases.json").read_text(encoding="utf-8"))


def run(folder: Path, envelope: Any, keys: Any) -> "tuple[int, Dict[str, Any]]":
    statement = folder / "statement.json"
    key_set = folder / "keys.json"
    statement.write_text(json.dumps(envelope), encoding="utf-8")
    key_set.write_text(json.dumps(keys), encoding="utf-8")
    out = io.StringIO()
    package = str(folder / "worked-example.package.json")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main([package, "--statement", str(statement), "--keys", str(key_set), "--json"])
    return code, json.loads(out.getvalue())


class Corpus(unittest.TestCase):
    folder: Path

    @classmethod
    def setUpClass(cls) -> None:
        cls._tmp = tempfile.TemporaryDirectory(prefix="svc-corpus-")
        cls.folder = Path(cls._tmp.name)
        for name in ("worked-example.package.json", "framework-1.0.json"):
            shutil.copy(CORPUS / name, cls.folder / name)

    @classmethod
    def tearDownClass(cls) -> None:
        cls._tmp.cleanup()

    def test_every_rule_is_held_by_a_case_and_genuine_ones_are_there_too(self) -> None:
        self.assertEqual({c["rule"] for c in CASES}, {"all", "1", "2", "3", "4", "5", "6", "7"})
        self.assertGreaterEqual(sum(1 for c in CASES if c["exit"] == 0), 4)

    def test_each_case_gets_the_exit_code_the_rules_give_it(self) -> None:
        for case in CASES:
            with self.subTest(case["name"]):
                code, answer = run(self.folder, case["envelope"], case["keys"])
                self.assertEqual(code, case["exit"], json.dumps(answer))
                if case["exit"] == 1:
                    self.assertIn(f"(rule {case['rule']})", answer["statement"]["note"])

    def test_without_cryptography_a_signature_is_never_passed_unchecked_it_exits_3(self) -> None:
        genuine = next(c for c in CASES if c["name"] == "genuine")
        with mock.patch.dict("sys.modules", {"cryptography": None, "cryptography.exceptions": None}):
            code, answer = run(self.folder, genuine["envelope"], genuine["keys"])
        self.assertEqual(code, CANNOT_CHECK)
        self.assertEqual(answer["exit_code"], CANNOT_CHECK)
        self.assertEqual(answer["statement"]["signature"], "not checked")
        self.assertIn("cryptography", answer["statement"]["note"])

    def test_a_statement_without_keys_is_bad_usage(self) -> None:
        genuine = next(c for c in CASES if c["name"] == "genuine")
        statement = self.folder / "alone.json"
        statement.write_text(json.dumps(genuine["envelope"]), encoding="utf-8")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            code = main([str(self.folder / "worked-example.package.json"), "--statement", str(statement)])
        self.assertEqual(code, 2)
        self.assertIn("--statement and --keys go together", err.getvalue())


class Timestamps(unittest.TestCase):
    def test_instants_compare_whatever_their_fraction_digits(self) -> None:
        self.assertEqual(instant_key("2026-07-01T09:00:00.5Z"), "2026-07-01T09:00:00.500000000")
        self.assertEqual(instant_key("2026-07-01T09:00:00Z"), "2026-07-01T09:00:00.000000000")
        self.assertGreater(instant_key("2026-07-01T09:00:00.5Z"), instant_key("2026-07-01T09:00:00Z"))
        self.assertEqual(instant_key("2026-07-01T09:00:00.500000000Z"), instant_key("2026-07-01T09:00:00.5Z"))

    def test_other_forms_are_refused(self) -> None:
        for text in ("2026-07-01T09:00:00+00:00", "2026-07-01", "2026-02-30T00:00:00Z", "2026-07-01T09:00:00.1234567891Z", 1):
            with self.subTest(text):
                self.assertIsNone(instant_key(text))


if __name__ == "__main__":
    unittest.main()
