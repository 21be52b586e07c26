"""Can the tests run scorekit as user 'nobody' (what a non-root user sees)?"""

import os
import sys


def nobody_can_run_scorekit() -> bool:
    """True when the tests run as root and user 'nobody' can run this interpreter and import
    scorekit from here (not so when the checkout sits under a private 0700 folder, as a clone
    into ``mktemp -d`` does): the tests of what a non-root user sees need both."""
    import shutil
    import subprocess

    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return False
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c",
                        "import scorekit.cli, click"], capture_output=True, env=env, cwd="/")
    return r.returncode == 0
