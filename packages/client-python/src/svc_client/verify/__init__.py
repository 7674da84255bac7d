"""An independent verifier of computation packages, written from the DCRF specification (standard library only).

It recomputes every step, figure, text and hash of a package from the package's own ``inputs`` and the framework
definition it names (supplied from outside: a file, or the service's public ``/api/public/frameworks/{version}``),
and compares the result with the package. ``python3 -m svc_client.verify --help`` for the command line.
"""

from __future__ import annotations

from typing import Any, Dict, NamedTuple, Optional

from .canonical import NotJson, canonical_bytes, canonical_text, read_json, sha256_hex
from .compare import Difference, shown, first_difference
from .compute import PACKAGE_FORMAT, reproduce
from .framework import Framework, FrameworkError, read_framework
from .inputs import document_problems


class NotAPackage(ValueError):
    """The document is not a computation package: exit code 2."""


class Verification(NamedTuple):
    reproduced: bool
    risk_indicator_id: Optional[str]
    framework_version: Optional[str]
    result_sha256: Optional[str]
    #: SHA-256 of the package's RFC 8785 bytes (what a signed statement names).
    package_sha256: str
    #: Whether the bytes read were exactly the canonical bytes.
    canonical: bool
    #: The first difference, in the order of the package's bytes; None when reproduced.
    difference: Optional[Difference]


def package_of(data: Any) -> Dict[str, Any]:
    """The parsed document when it is a computation package (the parts needed to recompute it); else NotAPackage."""
    if not isinstance(data, dict):
        raise NotAPackage("not a computation package: the JSON is not an object")
    if data.get("package_format") != PACKAGE_FORMAT:
        raise NotAPackage(f"not a computation package: package_format is not {PACKAGE_FORMAT!r}")
    framework = data.get("framework")
    if not isinstance(framework, dict) or not isinstance(framework.get("version"), str):
        raise NotAPackage("not a computation package: it names no framework version")
    if not isinstance(data.get("inputs"), dict):
        raise NotAPackage("not a computation package: it holds no inputs document")
    return data


def framework_version_of(package: Dict[str, Any]) -> str:
    return package["framework"]["version"]


def verify_package(package: Dict[str, Any], raw: bytes, framework: Framework) -> Verification:
    """Recomputes ``package`` (from ``package_of``; ``raw`` its bytes as read) under ``framework``."""
    package_bytes = canonical_bytes(package)

    def outcome(difference: Optional[Difference]) -> Verification:
        return Verification(
            reproduced=difference is None,
            risk_indicator_id=package.get("risk_indicator_id") if isinstance(package.get("risk_indicator_id"), str) else None,
            framework_version=package["framework"].get("framework_version"),
            result_sha256=package.get("result_sha256") if isinstance(package.get("result_sha256"), str) else None,
            package_sha256=sha256_hex(package_bytes),
            canonical=package_bytes == raw,
            difference=difference,
        )

    found_sha256 = package["framework"].get("sha256")
    if found_sha256 != framework.sha256:
        return outcome(Difference("framework.sha256", shown(framework.sha256), shown(found_sha256)))
    problems = document_problems(package["inputs"], framework)
    if problems:
        path, message = problems[0]
        found = _value_at(package["inputs"], path)
        return outcome(Difference("inputs." + path if path else "inputs", f"a valid value ({message})", found))
    expected = reproduce(package["inputs"], framework, package.get("engine"))
    return outcome(first_difference(expected, package))


def _value_at(document: Any, path: str) -> str:
    value = document
    for name in path.split("."):
        if not isinstance(value, dict) or name not in value:
            return "(absent)"
        value = value[name]
    return shown(value)


__all__ = [
    "Difference",
    "Framework",
    "FrameworkError",
    "NotAPackage",
    "NotJson",
    "Verification",
    "canonical_bytes",
    "canonical_text",
    "framework_version_of",
    "package_of",
    "read_framework",
    "read_json",
    "verify_package",
]
