#!/usr/bin/env python3
"""Runs the independent verifier (``python3 -m svc_client.verify``) from a checkout, without installing anything:

    python3 packages/client-python/svc_verify.py PACKAGE [--framework FILE|URL] [--statement FILE|URL --keys FILE|URL]

It puts this folder's ``src`` first on the module path. When ``svc_client`` still cannot be imported (a partial copy),
it says so and exits 3, the code for "could not check", never 1 ("does not reproduce"). Installed from the wheel,
``python3 -m svc_client.verify`` does the same work.
"""

import sys
from pathlib import Path

CANNOT_CHECK = 3

sys.path.insert(0, str(Path(__file__).resolve().parent / "src"))
try:
    from svc_client.verify.__main__ import main
except ImportError as error:
    print(
        f"svc_verify.py: cannot import the verifier ({error}): run it from a checkout of the repository, where "
        "packages/client-python/src holds svc_client, or install the wheel (pip install svc_client-*.whl) and run "
        "python3 -m svc_client.verify",
        file=sys.stderr,
    )
    sys.exit(CANNOT_CHECK)

sys.exit(main())
