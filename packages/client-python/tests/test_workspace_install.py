"""A fresh clone's first `pnpm install`, before anything is built, links every command without a warning.

pnpm links a dependency's ``bin`` when it installs, which in a fresh clone is before the build; a package that
depends on one whose ``bin`` is built (the CLI's ``dist/bin.js``) gets "Failed to create bin" instead. This suite
once did: it named ``@svc/cli`` as a devDependency only to have turbo build the CLI first. The test installs the
workspace's manifests and lockfile alone (no ``dist``, as in a fresh clone) from pnpm's store, offline.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import live_service

REPO = live_service.REPO
ROOT_FILES = ("package.json", "pnpm-workspace.yaml", "pnpm-lock.yaml", ".npmrc")
INSTALL_TIMEOUT_SECONDS = 120


def workspace_manifests() -> "list[Path]":
    """Every workspace package's package.json, relative to the repository (the folders pnpm-workspace.yaml names)."""
    return sorted(
        manifest.relative_to(REPO) for folder in ("packages", "apps") for manifest in (REPO / folder).glob("*/package.json")
    )


class FreshInstall(unittest.TestCase):
    def test_pnpm_install_before_any_build_creates_every_bin_without_a_warning(self) -> None:
        pnpm = shutil.which("pnpm")
        if pnpm is None:
            self.fail("pnpm is not on PATH: the workspace installs with pnpm 10 (the README's first command)")
        store = subprocess.run(
            [pnpm, "store", "path"], cwd=str(REPO), stdout=subprocess.PIPE, universal_newlines=True, check=True
        ).stdout.strip()
        manifests = workspace_manifests()
        self.assertIn(Path("apps/cli/package.json"), manifests)
        with tempfile.TemporaryDirectory(prefix="svc-fresh-install-") as folder:
            clone = Path(folder)
            for name in (*ROOT_FILES, *map(str, manifests)):
                (clone / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(str(REPO / name), str(clone / name))
            run = subprocess.run(
                [pnpm, "install", "--offline", "--frozen-lockfile", "--ignore-scripts", "--store-dir", store],
                cwd=str(clone),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                universal_newlines=True,
                timeout=INSTALL_TIMEOUT_SECONDS,
            )
            self.assertEqual(run.returncode, 0, run.stdout)
            failed = [line.strip() for line in run.stdout.splitlines() if "Failed to create bin" in line]
            self.assertEqual(failed, [], run.stdout)
            # The CLI's own command is still declared: the check above is not passing because nothing has a bin.
            self.assertIn('"svc": "./dist/bin.js"', (clone / "apps/cli/package.json").read_text(encoding="utf-8"))


if __name__ == "__main__":
    unittest.main()
