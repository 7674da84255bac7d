"""The client as a user installs it: the wheel build_wheel.py builds, installed by pip (no package index) into a
fresh virtual environment, then imported there, away from this folder, and used against the running service."""

from __future__ import annotations

import email
import json
import subprocess
import sys
import tempfile
import unittest
import urllib.request
import zipfile
from pathlib import Path
from typing import Dict, List

import live_service

sys.path.insert(0, str(live_service.PACKAGE))
import build_wheel  # noqa: E402

SERVICE = live_service.LiveService()
VENV_TIMEOUT_SECONDS = 120
UNKNOWN_PROVIDER_ID = "0f0f0f0f-0000-4000-8000-000000000000"

#: Runs in the virtual environment, from an empty folder: only what pip installed there is importable.
USE_THE_CLIENT = """
import json, os, sys
import svc_client
from svc_client import Client, SvcApiError

client = Client(os.environ["SVC_URL"], api_key=os.environ["SVC_API_KEY"])
status = client.status()
page = client.scores(limit=2)
first = client.score(page["data"][0]["provider_id"])
try:
    client.score(os.environ["UNKNOWN_PROVIDER_ID"])
    missing = None
except SvcApiError as error:
    missing = {"status": error.status, "code": error.code}
print(json.dumps({
    "file": svc_client.__file__,
    "version": svc_client.__version__,
    "prefix": sys.prefix,
    "status": status["status"],
    "page": [indicator["provider_id"] for indicator in page["data"]],
    "first": {key: first[key] for key in ("provider_id", "final_score", "risk_band")},
    "missing": missing,
}))
"""


def setUpModule() -> None:
    SERVICE.start()


def tearDownModule() -> None:
    SERVICE.stop()


class Wheel(unittest.TestCase):
    folder: Path
    wheel: Path

    @classmethod
    def setUpClass(cls) -> None:
        cls._temporary = tempfile.TemporaryDirectory(prefix="svc-client-wheel-test-")
        cls.folder = Path(cls._temporary.name)
        cls.wheel = build_wheel.build(cls.folder / "dist")

    @classmethod
    def tearDownClass(cls) -> None:
        cls._temporary.cleanup()

    def test_the_wheel_is_pure_python_and_ships_the_package_its_types_its_licence_and_nothing_else(self) -> None:
        self.assertEqual(self.wheel.name, f"svc_client-{self.version()}-py3-none-any.whl")
        with zipfile.ZipFile(str(self.wheel)) as archive:
            names = archive.namelist()
            info = f"svc_client-{self.version()}.dist-info"
            metadata = email.message_from_string(archive.read(f"{info}/METADATA").decode("utf-8"))
        root = live_service.PACKAGE / "src" / "svc_client"
        sources = sorted(
            p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
        )
        self.assertEqual(sorted(n[len("svc_client/") :] for n in names if n.startswith("svc_client/")), sources)
        self.assertIn("py.typed", sources)
        self.assertIn(f"{info}/LICENSE", names)
        self.assertEqual([n for n in names if not n.startswith(("svc_client/", f"{info}/"))], [])
        self.assertEqual(metadata["Name"], "svc-client")
        self.assertEqual(metadata["Version"], self.version())
        self.assertEqual(metadata["Requires-Python"], ">=3.8")
        self.assertEqual(metadata["License"], "Apache-2.0")
        self.assertIsNone(metadata["Requires-Dist"])  # the standard library only
        self.assertIn("Client(", metadata.get_payload())  # the README is the long description

    def test_the_readme_gives_the_install_line_the_next_test_runs_pip_install_of_the_wheel(self) -> None:
        readme = (live_service.PACKAGE / "README.md").read_text(encoding="utf-8")
        self.assertIn(f"\npip install ./{self.wheel.name}\n", readme)

    def test_pip_installs_it_into_a_fresh_virtualenv_where_it_makes_real_calls_to_the_running_service(self) -> None:
        venv = self.folder / "venv"
        self.run_checked([sys.executable, "-m", "venv", str(venv)])
        python = venv / "bin" / "python"
        self.run_checked(
            [str(python), "-m", "pip", "install", "--no-index", "--no-deps", "--disable-pip-version-check", str(self.wheel)]
        )
        empty = self.folder / "elsewhere"
        empty.mkdir()
        key = SERVICE.keys["PROFESSIONAL"]
        env = {
            "PATH": "/usr/bin:/bin",
            "SVC_URL": SERVICE.url,
            "SVC_API_KEY": key,
            "UNKNOWN_PROVIDER_ID": UNKNOWN_PROVIDER_ID,
            "NO_PROXY": "127.0.0.1,localhost",
        }
        answer = json.loads(self.run_checked([str(python), "-I", "-c", USE_THE_CLIENT], cwd=empty, env=env))
        # The package that ran is the one pip installed in the virtual environment, not this folder's src.
        self.assertEqual(Path(answer["prefix"]).resolve(), venv.resolve())
        installed = Path(answer["file"]).resolve()
        self.assertIn(venv.resolve(), installed.parents)
        self.assertIn("site-packages", installed.parts)
        self.assertEqual(answer["version"], self.version())
        # Its answers are the service's.
        request = urllib.request.Request(f"{SERVICE.url}/api/v1/scores?limit=2", headers={"x-api-key": key})
        with urllib.request.urlopen(request, timeout=10) as response:
            direct = json.loads(response.read())["data"]
        self.assertEqual(len(direct), 2)
        self.assertEqual(answer["page"], [indicator["provider_id"] for indicator in direct])
        self.assertEqual(answer["first"], {k: direct[0][k] for k in ("provider_id", "final_score", "risk_band")})
        self.assertEqual(answer["status"], "ok")
        self.assertEqual(answer["missing"], {"status": 404, "code": "not_found"})

    def version(self) -> str:
        namespace: Dict[str, str] = {}
        exec((live_service.PACKAGE / "src" / "svc_client" / "_version.py").read_text(encoding="utf-8"), namespace)
        return namespace["__version__"]

    def run_checked(self, command: List[str], cwd: "Path | None" = None, env: "Dict[str, str] | None" = None) -> str:
        run = subprocess.run(
            command,
            cwd=str(cwd) if cwd else None,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            universal_newlines=True,
            timeout=VENV_TIMEOUT_SECONDS,
        )
        self.assertEqual(run.returncode, 0, f"{' '.join(command[:4])} …: {run.stderr}")
        return run.stdout


if __name__ == "__main__":
    unittest.main()
