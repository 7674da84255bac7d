"""Where the verifier's documents come from: a file, or a URL (a service's base URL names its public endpoint)."""

from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from .._version import __version__

TIMEOUT_SECONDS = 30


class Unreadable(Exception):
    """A file or URL that could not be read: exit code 2."""


def is_url(source: str) -> bool:
    return urllib.parse.urlsplit(source).scheme in ("http", "https")


def is_base_url(source: str) -> bool:
    """A URL with no path (``https://svc.example`` or ``https://svc.example/``): the service itself."""
    return is_url(source) and urllib.parse.urlsplit(source).path in ("", "/")


def endpoint(base: str, path: str) -> str:
    return base.rstrip("/") + path


def fetch(url: str) -> bytes:
    request = urllib.request.Request(
        url, headers={"Accept": "application/json", "User-Agent": f"svc-client-verify/{__version__}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:  # noqa: S310 (http/https only)
            return answer.read()
    except urllib.error.HTTPError as error:
        raise Unreadable(f"{url} answered HTTP {error.code}") from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise Unreadable(f"could not fetch {url}: {reason}") from None


def read_source(source: str) -> bytes:
    """The bytes of a file or an http(s) URL; raises Unreadable."""
    if is_url(source):
        return fetch(source)
    try:
        return Path(source).read_bytes()
    except OSError as error:
        raise Unreadable(f"cannot read {source}: {error.strerror or error}") from None
