"""Runs the package's unittest suite and writes test-results.json in the shape of vitest's JSON report (with
``--system``, the system modules alone, to test-results.system.json).

`pnpm test:all` closes with tooling/test-summary.mjs, which adds up every package's test-results.json; writing the
same fields here counts the Python tests with the others. Exits 1 when a test fails or none ran.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
import unittest
from pathlib import Path
from typing import Dict, List, Optional, Tuple

PACKAGE = Path(__file__).resolve().parent
TESTS = PACKAGE / "tests"
REPORT = PACKAGE / "test-results.json"
#: The system suites (``--system``, the ``test:system`` task): the wheel built, installed by pip into a fresh virtual
#: environment and used; a fresh clone's first ``pnpm install``. The other modules are the ``test`` task's.
SYSTEM_MODULES = ("test_wheel", "test_workspace_install")

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"


class RecordingResult(unittest.TextTestResult):
    """A text result that also keeps one outcome per test: a test with any failing subtest has failed."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.outcomes: Dict[str, Tuple[str, float]] = {}
        self._started: Dict[str, float] = {}
        #: Each module's span, in epoch milliseconds: from the end of the module before (its set-up included) to its
        #: last test's end, so the summary's slowest files count the live service each module starts.
        self.spans: Dict[str, List[int]] = {}
        self._last_end_ms = int(time.time() * 1000)

    def startTest(self, test: unittest.TestCase) -> None:
        self._started[test.id()] = time.monotonic()
        self.spans.setdefault(module_of(test.id()), [self._last_end_ms, self._last_end_ms])
        super().startTest(test)

    def stopTest(self, test: unittest.TestCase) -> None:
        super().stopTest(test)
        self._last_end_ms = int(time.time() * 1000)
        self.spans.setdefault(module_of(test.id()), [self._last_end_ms, self._last_end_ms])[1] = self._last_end_ms

    def _record(self, test: unittest.TestCase, outcome: str) -> None:
        if self.outcomes.get(test.id(), ("",))[0] == FAILED:
            return
        started = self._started.get(test.id(), time.monotonic())
        self.outcomes[test.id()] = (outcome, time.monotonic() - started)

    def addSuccess(self, test: unittest.TestCase) -> None:
        super().addSuccess(test)
        self._record(test, PASSED)

    def addFailure(self, test: unittest.TestCase, err: object) -> None:
        super().addFailure(test, err)  # type: ignore[arg-type]
        self._record(test, FAILED)

    def addError(self, test: unittest.TestCase, err: object) -> None:
        # Also called with a stand-in "test" when setUpModule or setUpClass fails: that counts as one failure.
        super().addError(test, err)  # type: ignore[arg-type]
        self._record(test, FAILED)

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        super().addSkip(test, reason)
        self._record(test, SKIPPED)

    def addExpectedFailure(self, test: unittest.TestCase, err: object) -> None:
        super().addExpectedFailure(test, err)  # type: ignore[arg-type]
        self._record(test, PASSED)

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:
        super().addUnexpectedSuccess(test)
        self._record(test, FAILED)

    def addSubTest(self, test: unittest.TestCase, subtest: unittest.TestCase, err: Optional[object]) -> None:
        super().addSubTest(test, subtest, err)  # type: ignore[arg-type]
        if err is not None:
            self._record(test, FAILED)


def module_of(test_id: str) -> str:
    """``test_client`` from ``test_client.Scores.test_x``, or from ``setUpModule (test_client)`` (a fixture failed)."""
    fixture = re.search(r"\(([\w]+)", test_id)
    return fixture.group(1) if fixture else test_id.split(".")[0]


def report(
    outcomes: Dict[str, Tuple[str, float]], started_ms: int, spans: Optional[Dict[str, List[int]]] = None
) -> Dict[str, object]:
    counts = {outcome: sum(1 for o, _ in outcomes.values() if o == outcome) for outcome in (PASSED, FAILED, SKIPPED)}
    by_module: Dict[str, List[Dict[str, object]]] = {}
    for test_id, (outcome, seconds) in sorted(outcomes.items()):
        by_module.setdefault(module_of(test_id), []).append(
            {"fullName": test_id, "title": test_id, "status": outcome, "duration": round(seconds * 1000)}
        )
    return {
        "numTotalTests": len(outcomes),
        "numPassedTests": counts[PASSED],
        "numFailedTests": counts[FAILED],
        "numPendingTests": counts[SKIPPED],
        "numTodoTests": 0,
        "startTime": started_ms,
        "success": counts[FAILED] == 0 and counts[PASSED] > 0,
        "testResults": [
            {
                "name": str(TESTS / f"{module}.py"),
                **(
                    {"startTime": spans[module][0], "endTime": spans[module][1]}
                    if spans is not None and module in spans
                    else {}
                ),
                "status": FAILED if any(t["status"] == FAILED for t in tests) else PASSED,
                "assertionResults": tests,
            }
            for module, tests in by_module.items()
        ],
    }


def suite_of(system: bool) -> unittest.TestSuite:
    """Every test module of one side: the system modules, or all the others."""
    loader = unittest.defaultTestLoader
    sys.path.insert(0, str(TESTS))
    names = sorted(p.stem for p in TESTS.glob("test_*.py") if (p.stem in SYSTEM_MODULES) == system)
    return unittest.TestSuite(loader.loadTestsFromName(name) for name in names)


def main() -> int:
    system = "--system" in sys.argv[1:]
    report_file = REPORT.with_name("test-results.system.json") if system else REPORT
    if report_file.exists():
        report_file.unlink()  # a crash must not leave an earlier run's report to be counted
    started_ms = int(time.time() * 1000)
    suite = suite_of(system)
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=2, resultclass=RecordingResult)
    result = runner.run(suite)
    assert isinstance(result, RecordingResult)
    summary = report(result.outcomes, started_ms, result.spans)
    partial = report_file.with_suffix(".json.partial")
    partial.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    os.replace(partial, report_file)
    print(
        f"svc_client: {summary['numPassedTests']} passed, {summary['numFailedTests']} failed, "
        f"{summary['numPendingTests']} skipped (Python {sys.version.split()[0]})"
    )
    return 0 if summary["success"] else 1


if __name__ == "__main__":
    sys.exit(main())
