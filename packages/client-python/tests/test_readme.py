"""The README a user of the package reads: every public method of both clients is in it, written as code."""

from __future__ import annotations

import re
import unittest
from typing import List

import live_service

import svc_client
from svc_client import AsyncClient, Client

README = (live_service.PACKAGE / "README.md").read_text(encoding="utf-8")


def public_names(cls: type) -> List[str]:
    return [name for name in dir(cls) if not name.startswith("_")]


def named_in_code(name: str) -> bool:
    """``name(…)``, ``name`` or ``client.name`` in a code span."""
    return re.search(r"`(?:[\w.]*\.)?" + re.escape(name) + r"(?:\(|`)", README) is not None


class Readme(unittest.TestCase):
    def test_finds_the_methods(self) -> None:
        for name in ("score", "iter_scores", "statement", "close"):
            self.assertIn(name, public_names(Client))

    def test_names_every_public_method_of_client(self) -> None:
        self.assertEqual([name for name in public_names(Client) if not named_in_code(name)], [])

    def test_names_every_public_method_of_async_client(self) -> None:
        self.assertEqual([name for name in public_names(AsyncClient) if not named_in_code(name)], [])

    def test_names_every_function_and_class_the_package_exports(self) -> None:
        exported = [name for name in svc_client.__all__ if callable(getattr(svc_client, name))]
        self.assertEqual([name for name in exported if not re.search(r"\b" + name + r"\b", README)], [])


if __name__ == "__main__":
    unittest.main()
