"""The CLI's process set-up (scorekit/heap.py): freed large arrays are reused without new page
faults, numpy's huge pages are off, and commands without linear algebra start one BLAS thread."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

PROBE = r"""
import json, resource, sys
if sys.argv[1] == "prepare":
    from scorekit.heap import prepare
    prepare(["retrieval"])
import os
import numpy as np

def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

a = np.ones(64 << 17)          # 64 MiB: above glibc's largest mmap threshold
del a
before = faults()
b = np.ones(64 << 17)          # the same size again
print(json.dumps({"faults": faults() - before, "blas": os.environ.get("OPENBLAS_NUM_THREADS"),
                  "hugepage": os.environ.get("NUMPY_MADVISE_HUGEPAGE")}))
"""


def _probe(mode: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "NUMPY_MADVISE_HUGEPAGE")}
    if mode == "plain":   # 4 KiB pages in the control too, so its faults count pages
        env["NUMPY_MADVISE_HUGEPAGE"] = "0"
    out = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, env=env,
                         check=True)
    return json.loads(out.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_freed_large_arrays_are_reused_without_page_faults():
    plain, prepared = _probe("plain"), _probe("prepare")
    # 64 MiB is 16,384 pages of 4 KiB: glibc's default maps the second array afresh and the
    # kernel faults each page in; prepared, the freed pages are reused
    assert plain["faults"] > 8000
    assert prepared["faults"] < 500
    assert prepared["blas"] == "1" and prepared["hugepage"] == "0"
    assert plain["blas"] is None
