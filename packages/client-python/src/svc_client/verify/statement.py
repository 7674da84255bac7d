"""A signed statement (design section 2) checked against a package by the rules of ``docs/auditing.md`` section 8,
the same rules ``svc verify --statement`` applies: both are tested against the corpus in ``examples/statements``.

The standard library has no Ed25519: the signature is checked with the ``cryptography`` module. Without it the
signature cannot be checked, and the outcome says so with exit code 3 (never 0 with the signature unchecked).
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import re
from typing import Any, Dict, List, NamedTuple, Optional

from .compare import Difference, shown

#: The statement's members that must name the package (rule 7), and where the package holds each.
NAMED = ("package_sha256", "risk_indicator_id", "inputs_sha256", "result_sha256", "framework_sha256")

#: The exit code when the signature cannot be checked here (no ``cryptography``): not 0, not a verdict.
CANNOT_CHECK = 3


class StatementOutcome(NamedTuple):
    #: 0 when the statement names the package and its signature verifies; 1 when a rule fails; 3 when the
    #: signature cannot be checked here.
    exit_code: int
    difference: Optional[Difference]
    #: "valid", "invalid", or "not checked".
    signature: str
    #: Why the signature is what it is, in words, naming the rule that failed.
    note: str
    kid: Optional[str]
    statement_type: Optional[str]


class NotAStatement(ValueError):
    """The statement or keys document is not one: exit code 2."""


_B64URL = re.compile(r"^[A-Za-z0-9_-]*$")
_TIMESTAMP = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$")


def _b64url(text: Any, length: int) -> Optional[bytes]:
    """base64url without padding of exactly ``length`` bytes (rules 3 and 4), or None."""
    if not isinstance(text, str) or not _B64URL.match(text):
        return None
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError):
        return None
    if len(data) != length or base64.urlsafe_b64encode(data).rstrip(b"=").decode() != text:
        return None
    return data


def instant_key(text: Any) -> Optional[str]:
    """Rule 6: a UTC timestamp as the service writes it (``Z``, 0 to 9 fraction digits) as text that sorts by
    instant (the fraction padded to nine digits); None for any other form, an offset such as ``+00:00`` included."""
    match = _TIMESTAMP.match(text) if isinstance(text, str) else None
    if match is None:
        return None
    try:
        datetime.datetime.strptime(match.group(1), "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return None
    return match.group(1) + "." + (match.group(2) or "").ljust(9, "0")


def _named(statement: Dict[str, Any], package: Dict[str, Any], package_sha256: str) -> Optional[Difference]:
    """Rule 7: a publication statement naming this package."""
    if statement.get("type") != "publication":
        return Difference("statement.type", shown("publication"), shown(statement.get("type")))
    values = {
        "package_sha256": package_sha256,
        "risk_indicator_id": package.get("risk_indicator_id"),
        "inputs_sha256": package.get("inputs_sha256"),
        "result_sha256": package.get("result_sha256"),
        "framework_sha256": (package.get("framework") or {}).get("sha256"),
    }
    for name in NAMED:
        if statement.get(name) != values[name]:
            found = shown(statement[name]) if name in statement else "(absent)"
            return Difference(f"statement.{name}", shown(values[name]), found)
    return None


def _key(keys: Any, kid: str) -> Dict[str, Any]:
    """Rule 3: exactly one key has the kid; it is Ed25519, its x 32 bytes, the kid the first 16 hex digits of its
    SHA-256. Raises NotAStatement for a document that is not a JWKS, LookupError naming a failed rule."""
    if not isinstance(keys, dict) or not isinstance(keys.get("keys"), list):
        raise NotAStatement('the keys document is not a JWKS ({"keys": [...]})')
    found = [key for key in keys["keys"] if isinstance(key, dict) and key.get("kid") == kid]
    if not found:
        raise LookupError(f"no key with kid {kid} in the keys document (rule 3)")
    if len(found) > 1:
        raise LookupError(f"{len(found)} keys with kid {kid} in the keys document: which one signed is not known (rule 3)")
    key = found[0]
    if key.get("kty") != "OKP" or key.get("crv") != "Ed25519":
        raise LookupError(f"the key {kid} is not an Ed25519 key (kty OKP, crv Ed25519) (rule 3)")
    raw = _b64url(key.get("x"), 32)
    if raw is None:
        raise LookupError(f"the key {kid}'s x is not base64url of 32 bytes (rule 3)")
    if hashlib.sha256(raw).hexdigest()[:16] != kid:
        raise LookupError(f"the kid {kid} is not the first 16 hex digits of SHA-256 of its key (rule 3)")
    return key


def _life(statement: Dict[str, Any], key: Dict[str, Any], kid: str) -> Optional[str]:
    """Rule 6: signed_at within the key's life, as instants. The reason it fails, or None."""
    at = instant_key(statement.get("signed_at"))
    if at is None:
        return f"its signed_at {statement.get('signed_at')!r} is not a UTC timestamp ending in Z (rule 6)"
    not_before = instant_key(key.get("not_before"))
    not_after = instant_key(key.get("not_after")) if "not_after" in key else ""
    if not_before is None or not_after is None:
        return f"the key {kid}'s not_before or not_after is not a UTC timestamp ending in Z (rule 6)"
    if at < not_before:
        return f"signed before the key {kid} took effect ({key.get('not_before')}) (rule 6)"
    if not_after and at > not_after:
        return f"signed after the key {kid} was retired ({key.get('not_after')}) (rule 6)"
    return None


def _signature(envelope: Dict[str, Any], keys: Any, signed: bytes) -> StatementOutcome:
    kid = envelope["kid"]
    statement = envelope["statement"]
    kind = statement.get("type")

    def outcome(code: int, signature: str, note: str) -> StatementOutcome:
        return StatementOutcome(code, None, signature, note, kid, kind)

    if envelope["alg"] != "EdDSA":
        return outcome(1, "invalid", f"the statement's alg is {envelope['alg']!r}, not EdDSA (rule 2)")
    try:
        key = _key(keys, kid)
    except LookupError as error:
        return outcome(1, "invalid", str(error))
    raw = _b64url(key["x"], 32)
    assert raw is not None
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    except ImportError:
        return outcome(
            CANNOT_CHECK,
            "not checked",
            "the signature could not be checked: the Python module `cryptography` is not installed and the "
            "standard library has no Ed25519 (pip install cryptography, or check it with openssl pkeyutl -verify)",
        )
    signature = _b64url(envelope["signature"], 64)
    try:
        if signature is None:
            raise InvalidSignature()
        Ed25519PublicKey.from_public_bytes(raw).verify(signature, signed)
    except InvalidSignature:
        return outcome(1, "invalid", f"the signature does not verify with the key {kid} (rule 4)")
    life = _life(statement, key, kid)
    if life is not None:
        return outcome(1, "invalid", life)
    return outcome(0, "valid", f"the Ed25519 signature verifies with the key {kid}")


def check_statement(
    envelope: Any, keys: Any, package: Dict[str, Any], package_sha256: str, signed_bytes: bytes
) -> StatementOutcome:
    """``envelope`` is ``{statement, signature, kid, alg, statement_sha256}`` as ``GET /api/public/publications/{id}``
    answers it; ``signed_bytes`` the RFC 8785 bytes of its ``statement``; ``keys`` the JWKS. Raises NotAStatement
    (exit code 2) for an envelope or keys document that is not one (rules 1 and 4)."""
    if (
        not isinstance(envelope, dict)
        or not isinstance(envelope.get("statement"), dict)
        or not all(isinstance(envelope.get(name), str) for name in ("signature", "kid", "alg", "statement_sha256"))
    ):
        raise NotAStatement("not a signed statement ({statement, signature, kid, alg, statement_sha256}) (rule 1)")
    if not isinstance(keys, dict) or not isinstance(keys.get("keys"), list):
        raise NotAStatement('the keys document is not a JWKS ({"keys": [...]}) (rule 3)')
    statement = envelope["statement"]
    outcome = _signature(envelope, keys, signed_bytes)
    if outcome.exit_code != 0:
        return outcome
    statement_sha256 = hashlib.sha256(signed_bytes).hexdigest()
    if envelope["statement_sha256"] != statement_sha256:
        difference = Difference("statement_sha256", shown(statement_sha256), shown(envelope["statement_sha256"]))
        note = outcome.note + "; the statement's hash is not of its bytes (rule 5)"
        return outcome._replace(exit_code=1, difference=difference, note=note)
    difference = _named(statement, package, package_sha256)
    if difference is not None:
        return outcome._replace(exit_code=1, difference=difference, note=outcome.note + "; the statement names another package (rule 7)")
    return outcome


__all__: List[str] = ["CANNOT_CHECK", "StatementOutcome", "NotAStatement", "check_statement", "instant_key"]
