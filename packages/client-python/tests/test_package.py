"""The package as shipped: one version, Python 3.8 syntax, the names it exports."""

from __future__ import annotations

import ast
import re
import unittest

import live_service

import svc_client

SOURCES = sorted((live_service.PACKAGE / "src" / "svc_client").rglob("*.py"))


class Package(unittest.TestCase):
    def test_the_version_is_the_one_in_pyproject(self) -> None:
        pyproject = (live_service.PACKAGE / "pyproject.toml").read_text(encoding="utf-8")
        match = re.search(r'^version = "([^"]+)"$', pyproject, re.MULTILINE)
        assert match is not None
        self.assertEqual(svc_client.__version__, match.group(1))

    def test_every_source_file_parses_as_python_3_8(self) -> None:
        self.assertTrue(SOURCES)
        for source in SOURCES:
            with self.subTest(source=source.name):
                ast.parse(source.read_text(encoding="utf-8"), str(source), feature_version=(3, 8))

    def test_every_exported_name_exists_and_it_ships_py_typed(self) -> None:
        for name in svc_client.__all__:
            self.assertTrue(hasattr(svc_client, name), name)
        self.assertTrue((live_service.PACKAGE / "src" / "svc_client" / "py.typed").is_file())


if __name__ == "__main__":
    unittest.main()
