"""One HTTP exchange with the API over ``urllib.request``: headers, query encoding, JSON bodies, errors and retries."""

from __future__ import annotations

import http.client
import json
import platform
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from email.message import Message
from typing import Any, Mapping, Optional, Union

from ._version import __version__
from .errors import SvcApiError, SvcNetworkError

JSON = "application/json"
#: What a JSON route may answer: its body, or problem details.
ACCEPT_JSON = "application/json, application/problem+json"

#: Statuses that say "try again later"; only GETs are retried, as they change nothing.
RETRYABLE_STATUSES = frozenset({429, 503})

QueryValue = Union[str, int, float, bool, None]


@dataclass(frozen=True)
class Response:
    method: str
    url: str
    status: int
    headers: Message
    body: bytes

    def json(self) -> Any:
        """The body as JSON; an SvcApiError ``unexpected_response`` when it is not (a captive portal's page, say)."""
        try:
            return json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise SvcApiError.unexpected(self.method, self.url, self.status, self.headers, self.body) from None

    def text(self) -> str:
        charset = self.headers.get_content_charset() or "utf-8"
        try:
            return self.body.decode(charset)
        except (UnicodeDecodeError, LookupError):
            raise SvcApiError.unexpected(self.method, self.url, self.status, self.headers, self.body) from None


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """The API never redirects; following one would send the API key to wherever it points."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


class Transport:
    """Sends requests to one base URL with one key; retries a GET refused with 429 or 503 when the wait is short."""

    def __init__(
        self,
        base_url: str,
        api_key: Optional[str],
        timeout: float,
        max_retries: int,
        max_retry_wait: float,
    ) -> None:
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"base_url must be an absolute http(s) URL (https://scores.example.com), not {base_url!r}")
        if max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_retry_wait = max_retry_wait
        self._opener = urllib.request.build_opener(_NoRedirects)
        self._user_agent = f"svc-client-python/{__version__} (Python {platform.python_version()})"

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, QueryValue]] = None,
        body: Any = None,
        accept: str = ACCEPT_JSON,
    ) -> Response:
        """Sends one request (a GET again after a short 429 or 503); raises SvcApiError on any status from 300 up."""
        url = self.base_url + path + encode_query(query or {})
        data = None if body is None else json.dumps(body, ensure_ascii=False, allow_nan=False).encode("utf-8")
        retries = 0
        while True:
            response = self._send(method, url, data, accept)
            if response.status < 300:
                return response
            error = SvcApiError.from_response(method, url, response.status, response.headers, response.body)
            wait = self._retry_wait(method, error, retries)
            if wait is None:
                raise error
            time.sleep(wait)
            retries += 1

    def _retry_wait(self, method: str, error: SvcApiError, retries: int) -> Optional[float]:
        """Seconds to wait before the next try, or None to give up: not a GET, not retryable, spent, or too long."""
        if method != "GET" or error.status not in RETRYABLE_STATUSES or retries >= self.max_retries:
            return None
        # Without Retry-After, back off 0.5 s, 1 s, 2 s, …
        wait = float(error.retry_after) if error.retry_after is not None else 0.5 * (2**retries)
        return wait if wait <= self.max_retry_wait else None

    def _send(self, method: str, url: str, data: Optional[bytes], accept: str) -> Response:
        headers = {"accept": accept, "user-agent": self._user_agent}
        if self.api_key is not None:
            headers["x-api-key"] = self.api_key
        if data is not None:
            headers["content-type"] = JSON
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with self._opener.open(request, timeout=self.timeout) as answer:
                return Response(method, url, answer.status, answer.headers, answer.read())
        except urllib.error.HTTPError as refused:
            try:
                return Response(method, url, refused.code, refused.headers, refused.read() if refused.fp else b"")
            finally:
                refused.close()
        except (OSError, http.client.HTTPException) as failed:
            # URLError wraps connection failures in .reason; socket.timeout is TimeoutError from Python 3.10 on.
            cause = failed.reason if isinstance(failed, urllib.error.URLError) else failed
            if isinstance(cause, socket.timeout):
                raise SvcNetworkError("timeout", method, url, f"no answer within {self.timeout} s") from failed
            raise SvcNetworkError("network", method, url, f"the request failed: {cause!r}") from failed


def encode_query(query: Mapping[str, QueryValue]) -> str:
    """``?a=1&b=x`` from the values that are not None (booleans as true/false), or "" when none are left."""
    pairs = [(name, _query_text(value)) for name, value in query.items() if value is not None]
    return "?" + urllib.parse.urlencode(pairs) if pairs else ""


def _query_text(value: Union[str, int, float, bool]) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def path_segment(value: str) -> str:
    """A value quoted for one path segment, so an id can never reach another route."""
    return urllib.parse.quote(str(value), safe="")
