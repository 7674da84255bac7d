"""What the client raises: an answer it cannot return (``SvcApiError``), or no answer at all (``SvcNetworkError``)."""

from __future__ import annotations

import json
import math
import re
from datetime import datetime, timezone
from email.message import Message
from email.utils import parsedate_to_datetime
from http import HTTPStatus
from typing import Any, Dict, List, Optional, cast

from .types import FieldProblem, Problem

#: The code of an answer that was not problem details (a proxy's HTML 502), or a success whose body was unreadable.
UNEXPECTED_RESPONSE = "unexpected_response"
#: How much of a body that is not problem details goes into ``detail``.
_EXCERPT_CHARS = 200
_SECONDS = re.compile(r"[0-9]{1,10}")


class SvcError(Exception):
    """Base of every error this package raises about a call to the API."""


class SvcNetworkError(SvcError):
    """No answer came: the connection failed (``reason`` ``"network"``) or took longer than the timeout
    (``"timeout"``). The underlying exception is the ``__cause__``."""

    def __init__(self, reason: str, method: str, url: str, message: str) -> None:
        super().__init__(f"{method} {url}: {message}")
        self.reason = reason
        self.method = method
        self.url = url


class SvcApiError(SvcError):
    """The API answered with an error status. The fields are those of its RFC 9457 problem details.

    Branch on ``code`` (``invalid_request``, ``not_found``, ``insufficient_tier``, ``rate_limited``, …), never on
    ``detail`` or ``title``. ``code`` is ``unexpected_response`` when the answer was not problem details (a proxy's
    error page, for instance) or a success whose body could not be read; ``detail`` then holds the start of it.
    """

    def __init__(
        self,
        status: int,
        code: str,
        title: str,
        detail: str,
        *,
        method: str = "",
        url: str = "",
        errors: Optional[List[FieldProblem]] = None,
        request_id: Optional[str] = None,
        retry_after: Optional[int] = None,
        required_tier: Optional[str] = None,
        type: Optional[str] = None,
        instance: Optional[str] = None,
        problem: Optional[Problem] = None,
    ) -> None:
        super().__init__(status, code, title, detail)
        self.status = status
        self.code = code
        self.method = method
        self.url = url
        self.title = title
        self.detail = detail
        #: Every invalid value of a 400, as ``{"path": "query.limit", "message": "must be at least 1"}``.
        self.errors: List[FieldProblem] = list(errors or [])
        #: Quote it when asking for support; also the ``x-request-id`` header.
        self.request_id = request_id
        #: Seconds to wait before trying again (429 and 503), from ``Retry-After`` or the body.
        self.retry_after = retry_after
        #: The lowest tier entitled to the endpoint (403 ``insufficient_tier``).
        self.required_tier = required_tier
        self.type = type
        self.instance = instance
        #: The whole problem document as received; None when the body was not one.
        self.problem = problem

    def __str__(self) -> str:
        head = f"{self.method} {self.url} answered {self.status} {self.code}: {self.detail}".lstrip()
        return f"{head} (request {self.request_id})" if self.request_id else head

    @classmethod
    def from_response(cls, method: str, url: str, status: int, headers: Message, body: bytes) -> "SvcApiError":
        """Reads an error answer: problem details when it is one, else the status and the start of the body."""
        problem = _problem_of(body)
        header_request_id = headers.get("x-request-id")
        retry_after = parse_retry_after(headers.get("retry-after"))
        if problem is None:
            return cls.unexpected(method, url, status, headers, body, retry_after=retry_after)
        seconds = problem.get("retry_after_seconds")
        if retry_after is None and isinstance(seconds, int):
            retry_after = seconds
        return cls(
            status,
            problem["code"],
            problem.get("title") or _reason(status),
            problem.get("detail") or "",
            method=method,
            url=url,
            errors=problem.get("errors"),
            request_id=problem.get("request_id") or header_request_id,
            retry_after=retry_after,
            required_tier=problem.get("required_tier"),
            type=problem.get("type"),
            instance=problem.get("instance"),
            problem=problem,
        )

    @classmethod
    def unexpected(
        cls, method: str, url: str, status: int, headers: Message, body: bytes, *, retry_after: Optional[int] = None
    ) -> "SvcApiError":
        """An answer that is not what the endpoint promises: an error without problem details, or an unreadable
        success. ``detail`` holds the start of the body."""
        text = body.decode("utf-8", errors="replace").strip()
        return cls(
            status,
            UNEXPECTED_RESPONSE,
            _reason(status),
            text[:_EXCERPT_CHARS] or ("unreadable body" if status < 300 else "no problem body"),
            method=method,
            url=url,
            request_id=headers.get("x-request-id"),
            retry_after=retry_after,
        )


def parse_retry_after(value: Optional[str], now: Optional[datetime] = None) -> Optional[int]:
    """``Retry-After`` as whole seconds from now, from seconds or an HTTP date; None when absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if _SECONDS.fullmatch(text):
        return int(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):  # which one depends on the Python version and the text
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    delta = (when - (now or datetime.now(timezone.utc))).total_seconds()
    return max(0, math.ceil(delta))


def _problem_of(body: bytes) -> Optional[Problem]:
    """The body as problem details, when it is a JSON object with a string ``code`` and an integer ``status``."""
    try:
        parsed: Any = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(parsed, dict):
        return None
    fields = cast(Dict[str, Any], parsed)
    if not isinstance(fields.get("code"), str) or not isinstance(fields.get("status"), int):
        return None
    return cast(Problem, fields)


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return f"HTTP {status}"
