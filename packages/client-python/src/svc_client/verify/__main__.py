"""``python3 -m svc_client.verify PACKAGE [--framework FILE|URL] [--keys FILE|URL] [--statement FILE|URL] [--json]``

Exit codes: 0 everything reproduces (and the statement, when given, names the package and its signature verifies);
1 something does not (the first difference, or the rule of docs/auditing.md section 8 that fails, is named); 2 bad
usage, or a file or URL that is unreadable, not JSON, or not what it should be (a package, a framework definition, a
statement, a JWKS); 3 the statement's signature cannot be checked here (the Python module ``cryptography`` is
missing). ``packages/client-python/svc_verify.py`` runs this from a checkout and answers 3 when ``svc_client`` itself cannot be found.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any, Dict, List, Optional

from . import NotAPackage, Verification, framework_version_of, package_of, read_framework, verify_package
from .canonical import NotJson, canonical_bytes, read_json
from .framework import Framework, FrameworkError
from .sources import Unreadable, endpoint, is_base_url, is_url, read_source
from .statement import NotAStatement, StatementOutcome, check_statement

FRAMEWORKS_PATH = "/api/public/frameworks/"
PUBLICATIONS_PATH = "/api/public/publications/"
KEYS_PATH = "/.well-known/svc-signing-keys.json"


class Refused(Exception):
    """Exit code 2, with the message to print."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python3 -m svc_client.verify",
        description="Recompute a computation package from its inputs and the framework definition (DCRF), "
        "independently of the service, and check a signed statement about it.",
        epilog="Exit codes: 0 reproduced (and the statement verifies); 1 a difference or a statement rule that fails "
        "(named); 2 bad usage, unreadable or not a package; 3 the signature cannot be checked here (no cryptography). "
        "A URL with no path is the service's base URL: the framework, statement and keys are then fetched "
        f"from {FRAMEWORKS_PATH}{{version}}, {PUBLICATIONS_PATH}{{risk_indicator_id}} and {KEYS_PATH}.",
    )
    p.add_argument("package", metavar="PACKAGE", help="the computation package (a file or URL)")
    p.add_argument(
        "--framework",
        metavar="FILE|URL",
        help="the framework definition; default: framework-VERSION.json or framework.json beside the package",
    )
    p.add_argument("--statement", metavar="FILE|URL", help="a signed statement naming the package")
    p.add_argument("--keys", metavar="FILE|URL", help="the service's signing keys (JWKS); needed with --statement")
    p.add_argument("--json", action="store_true", help="print the outcome as one JSON object")
    return p


def _json_of(source: str, what: str) -> Any:
    try:
        return read_json(read_source(source))
    except Unreadable as error:
        raise Refused(str(error)) from None
    except NotJson as error:
        raise Refused(f"{what} {source} is {error}" if str(error).startswith("not") else f"{what} {source}: {error}") from None


def framework_source(given: Optional[str], package_path: str, version: str) -> str:
    if given is not None:
        if is_base_url(given):
            return endpoint(given, FRAMEWORKS_PATH + urllib.parse.quote(version, safe=""))
        return given
    if not is_url(package_path):
        folder = Path(package_path).resolve().parent
        for name in (f"framework-{version}.json", "framework.json"):
            if (folder / name).is_file():
                return str(folder / name)
    raise Refused(
        f"the framework definition is needed: give --framework FILE, or --framework URL of the service "
        f"(it serves version {version} at {FRAMEWORKS_PATH}{version}); none is beside the package "
        f"(framework-{version}.json or framework.json)"
    )


def load_framework(source: str) -> Framework:
    try:
        return read_framework(_json_of(source, "the framework"))
    except FrameworkError as error:
        raise Refused(f"not a framework definition this verifier can apply ({source}): {error}") from None


def check(args: argparse.Namespace) -> Dict[str, Any]:
    """Runs the verification; raises Refused (exit 2)."""
    started = time.perf_counter()
    try:
        raw = read_source(args.package)
        package = package_of(read_json(raw))
    except Unreadable as error:
        raise Refused(str(error)) from None
    except NotJson as error:
        raise Refused(f"{args.package}: {error}") from None
    except NotAPackage as error:
        raise Refused(f"{args.package}: {error}") from None
    version = framework_version_of(package)
    framework_from = framework_source(args.framework, args.package, version)
    framework = load_framework(framework_from)
    try:
        verification = verify_package(package, raw, framework)
    except NotJson as error:
        raise Refused(f"{args.package}: {error}") from None
    outcome: Dict[str, Any] = {"verification": verification, "framework_source": framework_from, "statement": None}
    if bool(args.keys) != bool(args.statement):
        raise Refused("--statement and --keys go together: the statement is checked against the keys")
    if args.statement:
        outcome["statement"] = statement_outcome(args, package, verification)
    outcome["seconds"] = time.perf_counter() - started
    return outcome


def statement_outcome(args: argparse.Namespace, package: Dict[str, Any], verification: Verification) -> StatementOutcome:
    ri_id = package.get("risk_indicator_id") if isinstance(package.get("risk_indicator_id"), str) else ""
    source = args.statement
    if is_base_url(source):
        source = endpoint(source, PUBLICATIONS_PATH + urllib.parse.quote(ri_id, safe=""))
    envelope = _json_of(source, "the statement")
    keys_source = endpoint(args.keys, KEYS_PATH) if is_base_url(args.keys) else args.keys
    keys = _json_of(keys_source, "the keys")
    try:
        signed = canonical_bytes(envelope["statement"]) if isinstance(envelope, dict) and isinstance(envelope.get("statement"), dict) else b""
        return check_statement(envelope, keys, package, verification.package_sha256, signed)
    except (NotAStatement, NotJson) as error:
        raise Refused(f"{source}: {error}") from None


def exit_code(outcome: Dict[str, Any]) -> int:
    verification: Verification = outcome["verification"]
    statement: Optional[StatementOutcome] = outcome["statement"]
    if not verification.reproduced:
        return 1
    return 0 if statement is None else statement.exit_code


def lines(outcome: Dict[str, Any]) -> List[str]:
    v: Verification = outcome["verification"]
    out = []
    if v.reproduced:
        out.append(f"reproduced: {v.risk_indicator_id} ({v.framework_version}), result sha256 {v.result_sha256}")
        out.append(f"package sha256 {v.package_sha256}")
        if not v.canonical:
            out.append("note: the file is not in canonical form (RFC 8785); the package sha256 is of its canonical bytes")
    else:
        d = v.difference
        assert d is not None
        out.append(f"does not reproduce: {d.path}: expected {d.expected}, found {d.found}")
    s: Optional[StatementOutcome] = outcome["statement"]
    if s is not None:
        if s.difference is not None:
            d = s.difference
            out.append(f"the statement does not name this package: {d.path}: expected {d.expected}, found {d.found}")
        else:
            out.append(f"the statement ({s.statement_type}) names this package")
        out.append(f"signature {s.signature}: {s.note}")
    return out


def as_json(outcome: Dict[str, Any], code: int) -> Dict[str, Any]:
    v: Verification = outcome["verification"]
    s: Optional[StatementOutcome] = outcome["statement"]
    difference = None if v.difference is None else v.difference._asdict()
    return {
        "exit_code": code,
        "reproduced": v.reproduced,
        "risk_indicator_id": v.risk_indicator_id,
        "framework_version": v.framework_version,
        "framework_source": outcome["framework_source"],
        "result_sha256": v.result_sha256,
        "package_sha256": v.package_sha256,
        "canonical": v.canonical,
        "difference": difference,
        "statement": None
        if s is None
        else {
            "names_package": s.difference is None,
            "difference": None if s.difference is None else s.difference._asdict(),
            "type": s.statement_type,
            "kid": s.kid,
            "signature": s.signature,
            "note": s.note,
        },
        "seconds": round(outcome["seconds"], 6),
    }


def main(argv: Optional[List[str]] = None) -> int:
    args = parser().parse_args(argv)
    try:
        outcome = check(args)
    except Refused as error:
        if args.json:
            print(json.dumps({"exit_code": 2, "error": str(error)}, ensure_ascii=False))
        else:
            print(f"svc_client.verify: {error}", file=sys.stderr)
        return 2
    code = exit_code(outcome)
    if args.json:
        print(json.dumps(as_json(outcome, code), ensure_ascii=False))
    else:
        stream = sys.stdout if code == 0 else sys.stderr
        for line in lines(outcome):
            print(line, file=stream)
    return code


if __name__ == "__main__":
    sys.exit(main())
