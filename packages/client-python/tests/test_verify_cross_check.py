"""The Python verifier against the TypeScript engine: every golden document and at least 1,000 generated ones
(fast-check, the methodology tests' own arbitraries, the seed printed) give byte-identical packages from both.

The engine writes the packages (packages/methodology/scripts/cross-check-packages.ts); the verifier recomputes each
from its inputs and the framework definition the script wrote, in a process per batch. CROSS_CHECK_SEED replays a
printed seed; CROSS_CHECK_COUNT changes the count.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path
from typing import Dict, List, Sequence

import live_service

METHODOLOGY = live_service.REPO / "packages" / "methodology"
SCRIPT = METHODOLOGY / "scripts" / "cross-check-packages.ts"
TSX = METHODOLOGY / "node_modules" / ".bin" / "tsx"
# The approved-inputs documents of each framework version (examples/statements holds signed statements instead).
GOLDEN = sorted((live_service.REPO / "examples").glob("dcrf-*/*.json"))
BATCH = Path(__file__).resolve().parent / "verify_batch.py"
COUNT = int(os.environ.get("CROSS_CHECK_COUNT", "1000"))
BATCHES = 2
GENERATE_TIMEOUT_SECONDS = 120
VERIFY_TIMEOUT_SECONDS = 300


def generate(folder: Path, seed: int, count: int = COUNT, golden: Sequence[Path] = GOLDEN) -> Dict[str, object]:
    """Runs the engine's script (packages of the golden documents and of ``count`` generated ones); its summary."""
    if shutil.which("node") is None or not TSX.exists():
        raise RuntimeError(f"the cross-check needs Node.js and {TSX} (pnpm install)")
    done = subprocess.run(
        [str(TSX), str(SCRIPT), str(folder), "--count", str(count), "--seed", str(seed), *map(str, golden)],
        cwd=str(METHODOLOGY),
        capture_output=True,
        text=True,
        timeout=GENERATE_TIMEOUT_SECONDS,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"cross-check-packages.ts failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def verify_in_batches(framework: Path, packages: List[Path]) -> List[Dict[str, object]]:
    chunks = [packages[i::BATCHES] for i in range(BATCHES)]
    processes = [
        subprocess.Popen(
            [sys.executable, str(BATCH), str(framework), *map(str, chunk)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for chunk in chunks
        if chunk
    ]
    results: List[Dict[str, object]] = []
    for process in processes:
        out, err = process.communicate(timeout=VERIFY_TIMEOUT_SECONDS)
        if process.returncode != 0:
            raise RuntimeError(f"verify_batch.py failed:\n{err}")
        results += [json.loads(line) for line in out.splitlines()]
    return results


class CrossCheck(unittest.TestCase):
    folder: Path
    summary: Dict[str, object]
    results: Dict[str, Dict[str, object]]
    verify_seconds: float

    @classmethod
    def setUpClass(cls) -> None:
        cls._tmp = tempfile.TemporaryDirectory(prefix="svc-cross-check-")
        cls.folder = Path(cls._tmp.name)
        seed = int(os.environ.get("CROSS_CHECK_SEED", str(random.SystemRandom().randrange(2**31))))
        print(f"\ncross-check: seed {seed} (CROSS_CHECK_SEED={seed} replays it), {COUNT} generated documents")
        cls.summary = generate(cls.folder, seed)
        packages = sorted(p for p in cls.folder.glob("*.json") if not p.name.startswith("framework-"))
        started = time.perf_counter()
        results = verify_in_batches(cls.folder / "framework-1.0.json", packages)
        cls.verify_seconds = time.perf_counter() - started
        cls.results = {Path(str(r["file"])).name: r for r in results}
        per_package = sum(float(r["seconds"]) for r in results) / max(len(results), 1)  # type: ignore[arg-type]
        print(
            f"cross-check: the engine wrote {len(packages)} packages in {cls.summary['milliseconds']} ms; the Python "
            f"verifier took {per_package * 1000:.1f} ms per package ({cls.verify_seconds:.1f} s in {BATCHES} processes)"
        )

    @classmethod
    def tearDownClass(cls) -> None:
        cls._tmp.cleanup()

    def _assert_reproduced(self, names: List[str]) -> None:
        self.assertTrue(names)
        for name in names:
            with self.subTest(package=name):
                r = self.results[name]
                self.assertEqual(r["exit_code"], 0, f"seed {self.summary['seed']}: {name}: {r['difference']}")
                self.assertTrue(r["identical"], f"{name}: the recomputed bytes differ from the engine's")

    def test_every_golden_document_reproduces_byte_for_byte(self) -> None:
        self.assertEqual(self.summary["golden"], len(GOLDEN))
        self.assertGreaterEqual(len(GOLDEN), 5)
        self._assert_reproduced([f"golden-{p.name}" for p in GOLDEN])

    def test_every_generated_document_reproduces_byte_for_byte(self) -> None:
        generated = sorted(n for n in self.results if n.startswith("generated-"))
        self.assertEqual(len(generated), COUNT)
        self._assert_reproduced(generated)

    def test_the_framework_written_is_the_one_the_packages_name(self) -> None:
        framework = (self.folder / "framework-1.0.json").read_bytes()
        self.assertEqual(hashlib.sha256(framework).hexdigest(), self.summary["framework_sha256"])


if __name__ == "__main__":
    unittest.main()
