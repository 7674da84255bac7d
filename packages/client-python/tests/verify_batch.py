"""Verifies many packages in one process (the cross-check starts one per batch, not one per package).

    python3 verify_batch.py FRAMEWORK PACKAGE...

For each package, runs the command line's ``main(PACKAGE --framework FRAMEWORK --json)`` and also checks the
recomputed package's canonical bytes against the file's bytes; prints one JSON line per package:
``{"file", "exit_code", "identical", "difference", "seconds"}`` (seconds: the command line's run alone).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from svc_client.verify import package_of, read_framework, read_json  # noqa: E402
from svc_client.verify.__main__ import main  # noqa: E402
from svc_client.verify.canonical import canonical_bytes  # noqa: E402
from svc_client.verify.compute import reproduce  # noqa: E402


def one(framework_path: str, framework_bytes: bytes, path: str) -> dict:
    started = time.perf_counter()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([path, "--framework", framework_path, "--json"])
    seconds = time.perf_counter() - started
    answer = json.loads(out.getvalue())
    raw = Path(path).read_bytes()
    package = package_of(read_json(raw))
    expected = reproduce(package["inputs"], read_framework(read_json(framework_bytes)), package["engine"])
    return {
        "file": path,
        "exit_code": code,
        "identical": canonical_bytes(expected) == raw,
        "difference": answer.get("difference"),
        "seconds": seconds,
    }


if __name__ == "__main__":
    framework_path, *packages = sys.argv[1:]
    framework_bytes = Path(framework_path).read_bytes()
    for package_path in packages:
        print(json.dumps(one(framework_path, framework_bytes, package_path)), flush=True)
