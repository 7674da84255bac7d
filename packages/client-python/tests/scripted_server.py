"""A server on 127.0.0.1 whose answers the test scripts, for the client's behaviour under answers the real service
gives only when something fails (a 503, a redirect, an HTML error page from a proxy)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Dict, List, NamedTuple, Optional, Tuple

Answer = Tuple[int, Dict[str, str], bytes]


class Seen(NamedTuple):
    method: str
    path: str
    headers: Dict[str, str]
    body: bytes


def problem(status: int, code: str, **extra: object) -> bytes:
    fields: Dict[str, object] = {"type": f"https://x/docs/errors#{code}", "title": code, "status": status}
    fields.update(detail=code, instance="/", code=code, request_id="req-1", **extra)
    return json.dumps(fields).encode()


OK: Answer = (200, {"content-type": "application/json"}, b'{"status": "ok"}')


def unavailable(retry_after: Optional[str]) -> Answer:
    headers = {"content-type": "application/problem+json"}
    if retry_after is not None:
        headers["retry-after"] = retry_after
    return (503, headers, problem(503, "unavailable"))


class ScriptedServer:
    """Answers each request with the next scripted answer (the last one again when the script runs out)."""

    def __init__(self, *answers: Answer, delay: float = 0) -> None:
        self.answers = list(answers)
        self.delay = delay
        self.seen: List[Seen] = []
        lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                time.sleep(outer.delay)
                with lock:
                    headers = {name.lower(): value for name, value in self.headers.items()}
                    outer.seen.append(Seen(self.command, self.path, headers, body))
                    # The last answer is given again to every later request.
                    answer = outer.answers.pop(0) if len(outer.answers) > 1 else outer.answers[0]
                status, answer_headers, payload = answer
                try:
                    self.send_response(status)
                    for name, value in answer_headers.items():
                        self.send_header(name, value)
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up first (the timeout tests)

            do_GET = do_POST = do_DELETE = _answer

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
