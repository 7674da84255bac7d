"""RFC 8785 (JSON Canonicalization Scheme), written from the RFC: the bytes every hash of a package is taken over.

JSON is read strictly (I-JSON: UTF-8, no duplicate member names, no NaN or Infinity), with every number kept as the
exact ``Decimal`` of its text, so that inputs are "read exactly as written" and nothing passes through binary floating
point on the way in. Numbers are written as ECMAScript writes the double nearest to them (RFC 8785 section 3.2.2.3).
"""

from __future__ import annotations

import hashlib
import json
import re
from decimal import Decimal
from typing import Any, Dict, List, Tuple


class NotJson(ValueError):
    """The bytes are not one I-JSON text: what the verifier answers with exit code 2."""


def _no_duplicates(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    obj: Dict[str, Any] = {}
    for name, value in pairs:
        if name in obj:
            raise NotJson(f"the member name {json.dumps(name)} appears twice in one object")
        obj[name] = value
    return obj


def _no_constant(name: str) -> Any:
    raise NotJson(f"{name} is not a JSON number")


def read_json(data: bytes) -> Any:
    """Parses UTF-8 JSON bytes; every number becomes a ``Decimal`` of exactly its text. Raises NotJson."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotJson(f"not UTF-8 text (byte {error.start})") from None
    if text.startswith("\ufeff"):
        raise NotJson("the text starts with a byte order mark")
    try:
        return json.loads(
            text,
            parse_float=Decimal,
            parse_int=Decimal,
            parse_constant=_no_constant,
            object_pairs_hook=_no_duplicates,
        )
    except json.JSONDecodeError as error:
        raise NotJson(f"not JSON: {error.msg} at line {error.lineno}, column {error.colno}") from None
    except RecursionError:
        raise NotJson("not JSON this verifier can read: nested too deeply") from None


def number_text(value: Any) -> str:
    """A JSON number as ECMAScript's ``Number.prototype.toString`` writes the double nearest to it.

    Python's ``repr`` of a float gives the same digits ECMAScript chooses (the shortest that read back as the same
    double, the closest of them to it); only the layout of those digits differs, and it is redone here.
    """
    x = float(value)
    if x != x or x in (float("inf"), float("-inf")):
        raise NotJson(f"the number {value} has no IEEE 754 double (RFC 8785 needs one)")
    if x == 0:
        return "0"
    if x < 0:
        return "-" + number_text(-x)
    _, digit_tuple, exponent = Decimal(repr(x)).as_tuple()
    digits = "".join(map(str, digit_tuple))
    stripped = digits.rstrip("0")
    exponent = int(exponent) + len(digits) - len(stripped)
    k = len(stripped)
    n = exponent + k  # the value is 0.DIGITS x 10^n
    if k <= n <= 21:
        return stripped + "0" * (n - k)
    if 0 < n <= 21:
        return stripped[:n] + "." + stripped[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + stripped
    e = n - 1
    mantissa = stripped if k == 1 else stripped[0] + "." + stripped[1:]
    return mantissa + "e" + ("+" if e > 0 else "-") + str(abs(e))


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
_NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f]')


def _escape(match: "re.Match[str]") -> str:
    char = match.group(0)
    return _ESCAPES.get(char) or "\\u%04x" % ord(char)


def string_text(value: str) -> str:
    """A JSON string: only ``"``, ``\\`` and the controls below U+0020 escaped; every other character as itself."""
    return '"' + _NEEDS_ESCAPE.sub(_escape, value) + '"'


def _utf16_order(name: str) -> bytes:
    # Big-endian UTF-16 bytes compare exactly as the string's UTF-16 code units do.
    return name.encode("utf-16-be", "surrogatepass")


def canonical_text(value: Any) -> str:
    """The RFC 8785 text of a JSON value (dict, list, str, bool, None, Decimal, int)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return string_text(value)
    if isinstance(value, (Decimal, int, float)):
        return number_text(value)
    if isinstance(value, dict):
        members = sorted(value.items(), key=lambda member: _utf16_order(member[0]))
        return "{" + ",".join(string_text(k) + ":" + canonical_text(v) for k, v in members) + "}"
    if isinstance(value, list):
        return "[" + ",".join(canonical_text(item) for item in value) + "]"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def canonical_bytes(value: Any) -> bytes:
    """The UTF-8 bytes of the canonical text; a lone surrogate (no UTF-8 for it) raises NotJson."""
    try:
        return canonical_text(value).encode("utf-8")
    except UnicodeEncodeError:
        raise NotJson("a string holds a lone surrogate (not well-formed Unicode)") from None


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canonical_sha256(value: Any) -> str:
    """SHA-256 (lower-case hex) of a value's canonical bytes."""
    return sha256_hex(canonical_bytes(value))
