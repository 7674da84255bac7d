"""Builds the svc_client wheel offline: ``python3 build_wheel.py [DESTINATION]`` prints the wheel's path.

The wheel is built the standard way, ``pip wheel --no-build-isolation --no-deps``, by the pyproject's backend
(setuptools), with the setuptools and wheel already installed rather than fetched from a package index: those of
this interpreter, or else Debian's ``/usr/bin/python3`` (packages python3-setuptools and python3-wheel, which
``.ci/run`` installs). The wheel is pure Python (``py3-none-any``): whichever interpreter builds it, any Python 3.8+
installs it. It is built from a copy of the sources, so the package folder is left as it was (no ``build/``, no
``*.egg-info``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, Optional

PACKAGE = Path(__file__).resolve().parent
#: What the build reads: the rest of the folder (tests, the npm manifest) is not part of the distribution.
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "src")
BUILD_TIMEOUT_SECONDS = 120

#: Exits 0 when setuptools >= 61 (PEP 621 metadata in pyproject.toml) and wheel can be imported.
CAN_BUILD = (
    "import sys, setuptools, wheel; "
    "sys.exit(0 if int(setuptools.__version__.split('.')[0]) >= 61 else 1)"
)


class BuildError(Exception):
    pass


def builder() -> str:
    """The first interpreter that can build the wheel without a package index."""
    candidates: List[str] = [sys.executable]
    debian = Path("/usr/bin/python3")
    if debian.is_file() and str(debian) not in candidates:
        candidates.append(str(debian))
    for python in candidates:
        check = subprocess.run([python, "-c", CAN_BUILD], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if check.returncode == 0:
            return python
    raise BuildError(
        "no Python here has setuptools (61 or later) and wheel to build the wheel with: tried "
        + ", ".join(candidates)
        + ". Install them (Debian: apt-get install python3-setuptools python3-wheel; elsewhere: "
        "pip install setuptools wheel)"
    )


def build(destination: Path) -> Path:
    """Builds the wheel into ``destination`` (created if need be); its path."""
    destination.mkdir(parents=True, exist_ok=True)
    python = builder()
    with tempfile.TemporaryDirectory(prefix="svc-client-wheel-") as folder:
        source = Path(folder) / "svc-client"
        source.mkdir()
        for name in SOURCES:
            if (PACKAGE / name).is_dir():
                shutil.copytree(str(PACKAGE / name), str(source / name), ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copyfile(str(PACKAGE / name), str(source / name))
        built = Path(folder) / "wheels"
        run = subprocess.run(
            [
                python,
                "-m",
                "pip",
                "wheel",
                "--no-build-isolation",
                "--no-deps",
                "--no-index",
                "--disable-pip-version-check",
                "--wheel-dir",
                str(built),
                str(source),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            universal_newlines=True,
            timeout=BUILD_TIMEOUT_SECONDS,
        )
        wheels = sorted(built.glob("*.whl")) if built.is_dir() else []
        if run.returncode != 0 or len(wheels) != 1:
            raise BuildError(f"{python} -m pip wheel exited {run.returncode}:\n{run.stdout}")
        target = destination / wheels[0].name
        shutil.copyfile(str(wheels[0]), str(target))
        return target


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1:
        print("usage: python3 build_wheel.py [DESTINATION]   (default: dist/ beside this file)", file=sys.stderr)
        return 2
    destination = Path(args[0]) if args else PACKAGE / "dist"
    try:
        print(build(destination.resolve()))
    except BuildError as error:
        print(f"build_wheel: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
