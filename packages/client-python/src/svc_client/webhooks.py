"""Checks that a webhook delivery came from the service, before its body is trusted or even parsed.

Every delivery carries two signatures of the same bytes: the service's own ``x-svc-signature`` (hex HMAC-SHA-256 of
the raw body, keyed with the UTF-8 of the whole ``whsec_…`` secret) and a Standard Webhooks ``webhook-signature``,
which also covers the event id and a timestamp and so refuses replays.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from email.message import Message
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union, cast

from .types import WebhookEvent

#: What a receiver may pass as the body: the bytes exactly as they arrived (a str is encoded as UTF-8).
RawBody = Union[bytes, bytearray, memoryview, str]
#: One header value, several (``[x-svc-signature, x-svc-signature-previous]``), or none.
Signatures = Union[str, Sequence[Optional[str]], None]
#: A request's headers: a mapping (any case of names; a value may be a list) or an ``email.message.Message``, such as
#: ``http.server``'s ``self.headers``.
Headers = Union[Mapping[str, Any], Message]

SIGNATURE_HEADER = "x-svc-signature"
PREVIOUS_SIGNATURE_HEADER = "x-svc-signature-previous"
STANDARD_ID_HEADER = "webhook-id"
STANDARD_TIMESTAMP_HEADER = "webhook-timestamp"
STANDARD_SIGNATURE_HEADER = "webhook-signature"

#: A rotation sends two signatures; a cap keeps a request with thousands from costing thousands of HMACs.
_MAX_SIGNATURES = 10
_SHA256_BYTES = 32
_SECRET_PREFIX = "whsec_"
_HEX = re.compile(r"[0-9a-fA-F]*")
_BASE64_DIGITS = re.compile(r"[A-Za-z0-9+/]*")
_UNIX_SECONDS = re.compile(r"[0-9]{1,15}")
_DEFAULT_TOLERANCE_SECONDS = 300


def verify_webhook_signature(secret: str, raw_body: RawBody, signature: Signatures) -> bool:
    """Whether ``signature`` (an ``x-svc-signature`` value, or a list of them) is the HMAC-SHA-256 of ``raw_body``.

    Pass the body exactly as received, never re-serialised JSON. During a secret rotation pass both headers:
    ``[headers.get("x-svc-signature"), headers.get("x-svc-signature-previous")]``. Anything wrong with what came over
    the network (absent, malformed, wrong length) gives False; only programmer errors raise TypeError. The comparison
    is ``hmac.compare_digest``. This signature does not cover a timestamp: dedupe on the event id, or use
    ``verify_standard_webhook``, which also refuses stale deliveries.
    """
    caller = "verify_webhook_signature"
    if not isinstance(secret, str):
        raise TypeError(f"{caller}: secret must be a str, not {type(secret).__name__}")
    body = _body_bytes(raw_body, caller)
    candidates = _hex_signatures(signature, caller)
    if secret == "" or not candidates or len(candidates) > _MAX_SIGNATURES:
        return False
    # The key is the whole secret string, whsec_ included, exactly as the service signs.
    expected = hmac.new(secret.encode("utf-8"), body, hashlib.sha256).digest()
    return _any_matches(expected, candidates)


class WebhookVerificationError(Exception):
    """Why a delivery was refused: answer it with a 4xx and do not process the event.

    ``reason`` is one of ``missing_header``, ``invalid_timestamp``, ``timestamp_out_of_tolerance``,
    ``invalid_signature``, ``invalid_secret``, ``invalid_payload``.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def verify_standard_webhook(
    secret: str,
    raw_body: RawBody,
    headers: Headers,
    *,
    tolerance_seconds: float = _DEFAULT_TOLERANCE_SECONDS,
    now: Optional[Callable[[], float]] = None,
) -> WebhookEvent:
    """Verifies a delivery by the Standard Webhooks scheme and returns its parsed event.

    ``webhook-signature`` must hold a ``v1`` signature of ``{webhook-id}.{webhook-timestamp}.{body}`` under the base64
    key after ``whsec_``, ``webhook-timestamp`` must be within ``tolerance_seconds`` of now, and the body must be an
    event whose ``id`` is ``webhook-id``. ``headers`` is a mapping (any case of names) or an ``email.message.Message``
    such as ``http.server``'s ``self.headers``. Raises ``WebhookVerificationError`` otherwise.
    """
    caller = "verify_standard_webhook"
    if not isinstance(secret, str):
        raise TypeError(f"{caller}: secret must be a str, not {type(secret).__name__}")
    body = _body_bytes(raw_body, caller)
    key = _standard_secret_key(secret)
    read = _header_reader(headers, caller)
    message_id = read(STANDARD_ID_HEADER, ", ")
    timestamp = read(STANDARD_TIMESTAMP_HEADER, ", ")
    signature = read(STANDARD_SIGNATURE_HEADER, " ")
    missing = [
        name
        for name, value in (
            (STANDARD_ID_HEADER, message_id),
            (STANDARD_TIMESTAMP_HEADER, timestamp),
            (STANDARD_SIGNATURE_HEADER, signature),
        )
        if value == ""
    ]
    if missing:
        raise WebhookVerificationError("missing_header", f"Missing or empty webhook header: {', '.join(missing)}")
    if not _UNIX_SECONDS.fullmatch(timestamp):
        raise WebhookVerificationError(
            "invalid_timestamp", f"{STANDARD_TIMESTAMP_HEADER} must be a whole number of unix seconds"
        )
    age = int((now or time.time)()) - int(timestamp)
    if abs(age) > tolerance_seconds:
        side = "past" if age > 0 else "future"
        raise WebhookVerificationError(
            "timestamp_out_of_tolerance",
            f"{STANDARD_TIMESTAMP_HEADER} is {abs(age)} s in the {side}; at most {tolerance_seconds} s is accepted",
        )
    candidates = _standard_signatures(signature)
    if not candidates:
        raise WebhookVerificationError(
            "invalid_signature", f"{STANDARD_SIGNATURE_HEADER} holds no well-formed v1 signature"
        )
    if len(candidates) > _MAX_SIGNATURES:
        raise WebhookVerificationError(
            "invalid_signature", f"{STANDARD_SIGNATURE_HEADER} holds more than {_MAX_SIGNATURES} signatures"
        )
    signed = f"{message_id}.{timestamp}.".encode("utf-8") + body
    if not _any_matches(hmac.new(key, signed, hashlib.sha256).digest(), candidates):
        raise WebhookVerificationError(
            "invalid_signature",
            f"No signature in {STANDARD_SIGNATURE_HEADER} matches this body, id and timestamp under this secret",
        )
    return _parse_event(body, message_id)


def _any_matches(expected: bytes, candidates: List[bytes]) -> bool:
    # Every candidate is compared, in constant time each, so the time taken says nothing about which one matched.
    matched = False
    for candidate in candidates:
        matched = hmac.compare_digest(expected, candidate) or matched
    return matched


def _body_bytes(raw_body: RawBody, caller: str) -> bytes:
    if isinstance(raw_body, str):
        return raw_body.encode("utf-8")
    if isinstance(raw_body, (bytes, bytearray, memoryview)):
        return bytes(raw_body)
    raise TypeError(f"{caller}: raw_body must be the request body as bytes (or str), not {type(raw_body).__name__}")


def _hex_signatures(signature: Signatures, caller: str) -> List[bytes]:
    """The well-formed 32-byte hex signatures among the header values (either case, space- or comma-separated)."""
    if signature is None:
        values: Sequence[Optional[str]] = []
    elif isinstance(signature, str):
        values = [signature]
    elif isinstance(signature, (list, tuple)):
        values = signature
    else:
        raise TypeError(
            f"{caller}: signature must be a header value, a list of them or None, not {type(signature).__name__}"
        )
    signatures: List[bytes] = []
    for value in values:
        if value is None:
            continue
        if not isinstance(value, str):
            raise TypeError(f"{caller}: signature values must be str, not {type(value).__name__}")
        # A repeated header arrives joined with ", "; hex never holds a comma or a space.
        for token in value.split():
            digits = token.rstrip(",")
            if len(digits) == 2 * _SHA256_BYTES and _HEX.fullmatch(digits):
                signatures.append(bytes.fromhex(digits))
    return signatures


def _standard_signatures(header: str) -> List[bytes]:
    """The well-formed ``v1`` signatures of a ``webhook-signature`` value; other versions are skipped."""
    signatures: List[bytes] = []
    for token in header.split():
        version, _, value = token.rstrip(",").partition(",")
        if version != "v1" or value == "":
            continue
        decoded = _base64_bytes(value)
        if decoded is not None and len(decoded) == _SHA256_BYTES:
            signatures.append(decoded)
    return signatures


def _standard_secret_key(secret: str) -> bytes:
    encoded = secret[len(_SECRET_PREFIX) :] if secret.startswith(_SECRET_PREFIX) else secret
    key = _base64_bytes(encoded)
    if not key:
        raise WebhookVerificationError(
            "invalid_secret",
            "The webhook secret must be whsec_ followed by base64 (or the base64 alone), as the workspace was given",
        )
    return key


def _base64_bytes(text: str) -> Optional[bytes]:
    """Standard-alphabet base64, padded or not; None when it is not (b64decode alone forgives too much)."""
    digits = text[:-2] if text.endswith("==") else text[:-1] if text.endswith("=") else text
    padded = len(digits) != len(text)
    if not _BASE64_DIGITS.fullmatch(digits) or len(digits) % 4 == 1 or (padded and len(text) % 4 != 0):
        return None
    try:
        return base64.b64decode(digits + "=" * (-len(digits) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def _header_reader(headers: Headers, caller: str) -> Callable[[str, str], str]:
    """Reads a header by name, in any case, from a Message (``get_all``) or a mapping, joining repeated values."""
    if isinstance(headers, Message):
        message = headers
        return lambda name, separator: separator.join(_texts(message.get_all(name) or []))
    if isinstance(headers, Mapping):
        pairs = cast(Mapping[object, object], headers)

        def read(name: str, separator: str) -> str:
            values: List[object] = []
            for key, value in pairs.items():
                if isinstance(key, str) and key.lower() == name:
                    values.extend(cast(Sequence[object], value) if isinstance(value, (list, tuple)) else [value])
            return separator.join(_texts(values))

        return read
    raise TypeError(f"{caller}: headers must be a mapping or an email.message.Message, not {type(headers).__name__}")


def _texts(values: Sequence[object]) -> List[str]:
    """The non-empty strings among header values, trimmed."""
    return [value.strip() for value in values if isinstance(value, str) and value.strip()]


def _parse_event(body: bytes, message_id: str) -> WebhookEvent:
    try:
        parsed: Any = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise WebhookVerificationError("invalid_payload", "The webhook body is not UTF-8 JSON") from None
    if not isinstance(parsed, dict):
        raise WebhookVerificationError("invalid_payload", "The webhook body is not a JSON object")
    event = cast(Dict[str, Any], parsed)
    for field in ("id", "type", "created_at"):
        if not isinstance(event.get(field), str):
            raise WebhookVerificationError("invalid_payload", f'The webhook event has no string "{field}"')
    if not isinstance(event.get("data"), dict):
        raise WebhookVerificationError("invalid_payload", 'The webhook event has no object "data"')
    if event["id"] != message_id:
        raise WebhookVerificationError(
            "invalid_payload", f'The webhook event\'s "id" is not the {STANDARD_ID_HEADER} header'
        )
    return cast(WebhookEvent, event)
