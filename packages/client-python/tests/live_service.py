"""The real service for a test module, started as users start it: the built `svc` CLI on a fresh temporary store.

Builds nothing: turbo builds the CLI first (``@svc/cli#build`` in this package's turbo.json; not a
devDependency, whose ``bin`` pnpm would link before the build). Also puts the
package's ``src`` folder on ``sys.path``, so importing this module first lets the tests import ``svc_client``
without installing it.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, Dict, List, NamedTuple, Optional

PACKAGE = Path(__file__).resolve().parents[1]
REPO = PACKAGE.parents[1]
BIN = REPO / "apps" / "cli" / "dist" / "bin.js"

sys.path.insert(0, str(PACKAGE / "src"))

#: Every variable the service's configuration reads: dropped from the inherited environment, so the test says all.
CONFIG_VARIABLES = (
    "PORT",
    "HOST",
    "DATABASE_URL",
    "REDIS_URL",
    "SVC_DATA_DIR",
    "SVC_MASTER_KEY",
    "SITE_URL",
    "TRUST_PROXY",
    "LOG_LEVEL",
    "SVC_INSTANCES",
    "SVC_STORE_TIMEOUT_MS",
    "SVC_SHUTDOWN_GRACE_MS",
    "SVC_MCP_ENABLED",
    "SVC_WEBHOOK_RETRY_SCHEDULE",
    "SVC_WEBHOOK_TIMEOUT",
    "SVC_WEBHOOK_POLL_INTERVAL",
    "SVC_WEBHOOK_CONCURRENCY",
    "SVC_WEBHOOK_ALLOW_LOOPBACK",
    "SVC_WEBHOOK_DISPATCH",
    "SVC_MAX_EVALUATION_AGE_DAYS",
    "SVC_REVIEW_CADENCE_DAYS",
)
CLI_TIMEOUT_SECONDS = 60
START_TIMEOUT_SECONDS = 30
STOP_TIMEOUT_SECONDS = 15

# The service and the receivers listen on 127.0.0.1: never send those requests through a proxy from the environment.
os.environ["NO_PROXY"] = os.environ["no_proxy"] = ",".join(
    part for part in (os.environ.get("NO_PROXY") or os.environ.get("no_proxy"), "127.0.0.1", "localhost") if part
)


class LiveService:
    """A fresh store seeded with the demo data, one workspace (its API terms accepted) with a FREE, a PROFESSIONAL
    and an ENTERPRISE key, and ``svc serve`` on a free port. ``start()`` in setUpModule, ``stop()`` in
    tearDownModule."""

    TIERS = ("FREE", "PROFESSIONAL", "ENTERPRISE")

    def __init__(self) -> None:
        self.url = ""
        self.workspace_id = ""
        #: The workspace's webhook signing secret (whsec_…), as `svc workspace create` printed it.
        self.webhook_secret = ""
        #: One API key per tier name.
        self.keys: Dict[str, str] = {}
        self.env: Dict[str, str] = {}
        self._node = "node"
        self._folder: Optional[tempfile.TemporaryDirectory[str]] = None
        self._process: Optional[subprocess.Popen[str]] = None
        self._stderr: Optional[IO[str]] = None
        self._stdout_lines: List[str] = []
        self._reader: Optional[threading.Thread] = None

    def start(self) -> None:
        node = shutil.which("node")
        if node is None:
            raise RuntimeError("node is not on PATH: the Python client's tests run the service with Node.js 20+")
        if not BIN.is_file():
            raise RuntimeError(
                f"{BIN} is missing: build the repository first (`pnpm build`, or `npx turbo run build`); "
                "the Python client's tests start the built service and build nothing"
            )
        self._node = node
        self._folder = tempfile.TemporaryDirectory(prefix="svc-client-python-")
        try:
            self.env = self._environment(Path(self._folder.name) / "data")
            self.cli("db", "seed", "--demo")
            workspace = self.cli_json("workspace", "create", "Python client tests")
            self.workspace_id = workspace["workspace_id"]
            self.webhook_secret = workspace["webhook_secret"]
            # Keys are issued only once the workspace's contract administrator has accepted the API terms.
            self.cli(
                "workspace",
                "accept-terms",
                self.workspace_id,
                "--administrator",
                "Python Client Tests Administrator",
                "--email",
                "admin@python-client-tests.example",
            )
            for tier in self.TIERS:
                self.keys[tier] = self.create_key(tier)
            self._serve()
        except BaseException:
            # unittest skips tearDownModule when setUpModule fails: leave no process or folder behind.
            self.stop()
            raise

    def stop(self) -> None:
        """SIGTERM, then waits for the exit; SIGKILL only if it does not stop in time. Removes the store."""
        try:
            if self._process is not None and self._process.poll() is None:
                self._process.send_signal(signal.SIGTERM)
                try:
                    code = self._process.wait(timeout=STOP_TIMEOUT_SECONDS)
                except subprocess.TimeoutExpired:
                    self._process.kill()
                    self._process.wait()
                    raise RuntimeError(f"svc serve did not stop within {STOP_TIMEOUT_SECONDS} s of SIGTERM") from None
                if code != 0:
                    raise RuntimeError(f"svc serve exited {code} on SIGTERM; stderr: {self._stderr_text()}")
        finally:
            if self._reader is not None:
                self._reader.join(timeout=STOP_TIMEOUT_SECONDS)  # it ends at the exited process's end of output
            if self._process is not None and self._process.stdout is not None:
                self._process.stdout.close()
            if self._stderr is not None:
                self._stderr.close()
            if self._folder is not None:
                self._folder.cleanup()

    def create_key(self, tier: str) -> str:
        created = self.cli_json("key", "create", "--workspace", self.workspace_id, "--tier", tier)
        return str(created["key"])

    def cli(self, *args: str) -> str:
        """Runs the built CLI on this store; its stdout, or an error carrying its stderr."""
        run = subprocess.run(
            [self._node, str(BIN), *args],
            env=self.env,
            cwd=str(REPO),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            universal_newlines=True,
            timeout=CLI_TIMEOUT_SECONDS,
        )
        if run.returncode != 0:
            raise RuntimeError(f"svc {' '.join(args)} exited {run.returncode}: {run.stderr.strip()}")
        return run.stdout

    def cli_json(self, *args: str) -> Dict[str, str]:
        return json.loads(self.cli(*args, "--json"))  # type: ignore[no-any-return]

    def _environment(self, data_dir: Path) -> Dict[str, str]:
        env = {name: value for name, value in os.environ.items() if name not in CONFIG_VARIABLES}
        env.update(
            SVC_DATA_DIR=str(data_dir),
            LOG_LEVEL="silent",
            # Plain http to a loopback receiver, polled often, so a webhook test sees its delivery at once.
            SVC_WEBHOOK_ALLOW_LOOPBACK="true",
            SVC_WEBHOOK_POLL_INTERVAL="100ms",
            # The examples are evaluated in 2026-06 and published by the real clock: a century's maximum age
            # (decision 0053), as the other suites set it.
            SVC_MAX_EVALUATION_AGE_DAYS="36500",
        )
        return env

    def _serve(self) -> None:
        assert self._folder is not None
        self._stderr = open(Path(self._folder.name) / "serve.stderr", "w+", encoding="utf-8")
        self._process = subprocess.Popen(
            [self._node, str(BIN), "serve", "--port", "0", "--json"],
            env=self.env,
            cwd=str(REPO),
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            universal_newlines=True,
        )
        first_line: "queue.Queue[str]" = queue.Queue()
        self._reader = threading.Thread(target=self._read_stdout, args=(first_line,), daemon=True)
        self._reader.start()
        try:
            line = first_line.get(timeout=START_TIMEOUT_SECONDS)
        except queue.Empty:
            line = ""
        if not line.startswith("{"):
            self._process.kill()
            self._process.wait()
            raise RuntimeError(f"svc serve printed no {{url}} line: {line!r}; stderr: {self._stderr_text()}")
        self.url = json.loads(line)["url"]

    def _stderr_text(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        return self._stderr.read().strip()

    def _read_stdout(self, first_line: "queue.Queue[str]") -> None:
        assert self._process is not None and self._process.stdout is not None
        for line in self._process.stdout:
            if not self._stdout_lines:
                first_line.put(line.strip())
            self._stdout_lines.append(line)
        first_line.put("")  # the process ended: unblock a start still waiting


class Delivery(NamedTuple):
    path: str
    headers: Dict[str, str]
    body: bytes


class WebhookReceiver:
    """An HTTP server on 127.0.0.1 in a thread that answers 200 to every POST and keeps what it received."""

    def __init__(self) -> None:
        received: "queue.Queue[Delivery]" = queue.Queue()
        self.received = received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                received.put(Delivery(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/hooks/svc"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> "WebhookReceiver":
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def next_delivery(self, timeout: float = 20) -> Delivery:
        try:
            return self.received.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no webhook delivery reached {self.url} within {timeout} s") from None
