"""A signed statement (design section 2) checked against a package: does it name this package, is its signature good.

The standard library has no Ed25519: the signature is checked with the ``cryptography`` module when it can be
imported, and otherwise the outcome says plainly that it was not checked (that alone does not fail verification).
"""

from __future__ import annotations

import base64
import datetime
import hashlib
from typing import Any, Dict, List, NamedTuple, Optional

from .compare import Difference, shown

#: The statement's members that must name the package, and where the package holds each.
NAMED = ("package_sha256", "risk_indicator_id", "inputs_sha256", "result_sha256", "framework_sha256")


class StatementOutcome(NamedTuple):
    #: 0 when the statement names the package and no signature check failed; 1 otherwise.
    exit_code: int
    difference: Optional[Difference]
    #: "valid", "invalid", or "not checked".
    signature: str
    #: Why the signature is what it is, in words.
    note: str
    kid: Optional[str]
    statement_type: Optional[str]


class NotAStatement(ValueError):
    """The statement or keys document is not one: exit code 2."""


def _b64url(text: Any, what: str) -> bytes:
    if not isinstance(text, str):
        raise NotAStatement(f"{what} is not base64url text")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError):
        raise NotAStatement(f"{what} is not base64url text") from None


def _instant(text: Any) -> Optional[datetime.datetime]:
    """An ISO 8601 UTC timestamp (``Z``, up to nine fraction digits) as an aware datetime, or None."""
    if not isinstance(text, str) or not text.endswith("Z"):
        return None
    body = text[:-1]
    if "." in body:
        whole, fraction = body.split(".", 1)
        body = whole + "." + fraction[:6].ljust(6, "0")
    try:
        return datetime.datetime.fromisoformat(body).replace(tzinfo=datetime.timezone.utc)
    except ValueError:
        return None


def _named(statement: Dict[str, Any], package: Dict[str, Any], package_sha256: str) -> Optional[Difference]:
    values = {
        "package_sha256": package_sha256,
        "risk_indicator_id": package.get("risk_indicator_id"),
        "inputs_sha256": package.get("inputs_sha256"),
        "result_sha256": package.get("result_sha256"),
        "framework_sha256": (package.get("framework") or {}).get("sha256"),
    }
    for name in NAMED:
        if name == "framework_sha256" and name not in statement:
            continue  # optional in a statement; named when present
        if statement.get(name) != values[name]:
            found = shown(statement[name]) if name in statement else "(absent)"
            return Difference(f"statement.{name}", shown(values[name]), found)
    return None


def _key(keys: Any, kid: Any) -> Dict[str, Any]:
    if not isinstance(keys, dict) or not isinstance(keys.get("keys"), list):
        raise NotAStatement('the keys document is not a JWKS ({"keys": [...]})')
    for key in keys["keys"]:
        if isinstance(key, dict) and key.get("kid") == kid:
            return key
    raise LookupError(f"no key with kid {kid} in the keys document")


def _signature(envelope: Dict[str, Any], keys: Any, signed: bytes) -> StatementOutcome:
    kid = envelope.get("kid")
    statement = envelope["statement"]
    kind = statement.get("type")

    def outcome(code: int, signature: str, note: str) -> StatementOutcome:
        return StatementOutcome(code, None, signature, note, kid if isinstance(kid, str) else None, kind)

    if envelope.get("alg") != "EdDSA":
        return outcome(1, "invalid", f"the statement's alg is {envelope.get('alg')!r}, not EdDSA")
    try:
        key = _key(keys, kid)
    except LookupError as error:
        return outcome(1, "invalid", str(error))
    if key.get("kty") != "OKP" or key.get("crv") != "Ed25519":
        return outcome(1, "invalid", f"the key {kid} is not an Ed25519 key (kty OKP, crv Ed25519)")
    raw = _b64url(key.get("x"), f"the key {kid}'s x")
    if len(raw) != 32:
        return outcome(1, "invalid", f"the key {kid}'s x is not 32 bytes")
    if hashlib.sha256(raw).hexdigest()[:16] != kid:
        return outcome(1, "invalid", f"the kid {kid} is not the first 16 hex digits of SHA-256 of its key")
    signature = _b64url(envelope.get("signature"), "the signature")
    at = _instant(statement.get("signed_at") or statement.get("published_at"))
    not_before, not_after = _instant(key.get("not_before")), _instant(key.get("not_after"))
    if at is not None and not_before is not None and at < not_before:
        return outcome(1, "invalid", f"signed before the key {kid} took effect ({key.get('not_before')})")
    if at is not None and not_after is not None and at > not_after:
        return outcome(1, "invalid", f"signed after the key {kid} was retired ({key.get('not_after')})")
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    except ImportError:
        return outcome(
            0,
            "not checked",
            "the signature could not be checked: the Python module `cryptography` is not installed and the "
            "standard library has no Ed25519 (pip install cryptography, or check it with openssl pkeyutl -verify)",
        )
    try:
        Ed25519PublicKey.from_public_bytes(raw).verify(signature, signed)
    except InvalidSignature:
        return outcome(1, "invalid", f"the signature does not verify with the key {kid}")
    return outcome(0, "valid", f"the Ed25519 signature verifies with the key {kid}")


def check_statement(
    envelope: Any, keys: Optional[Any], package: Dict[str, Any], package_sha256: str, signed_bytes: bytes
) -> StatementOutcome:
    """``envelope`` is ``{statement, signature, kid, alg}`` as ``GET /api/public/publications/{id}`` answers it;
    ``signed_bytes`` the RFC 8785 bytes of its ``statement``. Raises NotAStatement (exit code 2)."""
    if not isinstance(envelope, dict) or not isinstance(envelope.get("statement"), dict):
        raise NotAStatement("not a signed statement ({statement, signature, kid, alg})")
    statement = envelope["statement"]
    difference = _named(statement, package, package_sha256)
    statement_sha256 = hashlib.sha256(signed_bytes).hexdigest()
    if difference is None and envelope.get("statement_sha256", statement_sha256) != statement_sha256:
        difference = Difference("statement_sha256", shown(statement_sha256), shown(envelope["statement_sha256"]))
    kid = envelope.get("kid") if isinstance(envelope.get("kid"), str) else None
    if difference:
        note = "the statement names another package" if difference.path.startswith("statement.") else "the statement's hash is not of its bytes"
        return StatementOutcome(1, difference, "not checked", note, kid, statement.get("type"))
    if keys is None:
        return StatementOutcome(
            0, None, "not checked", "the signature was not checked: no --keys given", kid, statement.get("type")
        )
    return _signature(envelope, keys, signed_bytes)


__all__: List[str] = ["StatementOutcome", "NotAStatement", "check_statement"]
