"""Issue #25: Ray offline and bounded.

A local cluster that scorekit starts talks to nothing outside the machine (an audit hook in the
driver; a network namespace with only loopback, where the platform allows one); an address that
does not answer fails within the timeout in one line; a bad address is a usage error; ``-q``
leaves stderr empty. Every test runs scorekit in a subprocess, which shuts its Ray down.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("ray")

pytestmark = pytest.mark.xdist_group("ray")   # one local Ray at a time (with test_ray*.py)
ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples" / "retrieval"
RETRIEVAL = ["retrieval", "--qrels", str(EX / "qrels.txt"), "--run", str(EX / "run_v1.txt"), "-m", "map,ndcg@3"]


def _env(**extra):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "SCOREKIT_RAY_NUM_CPUS": "1", **extra}
    env.pop("RAY_ADDRESS", None)
    return env


# The driver records every socket it connects and every name it looks up.
AUDITED = """
import json, sys
seen = []
def hook(event, args):
    if event == "socket.connect":
        seen.append(["connect", repr(args[1])])
    elif event == "socket.getaddrinfo":
        seen.append(["getaddrinfo", repr(args[0])])
    elif event == "socket.bind":
        seen.append(["bind", repr(args[1])])
    elif event == "socket.sendto":
        seen.append(["sendto", repr(args[1])])
sys.addaudithook(hook)
from scorekit.engine.ray_engine import RayEngine
def negate(x):
    return -x
with RayEngine(progress=False, quiet=True) as eng:
    assert eng.map(negate, [-1, -2, 3]) == [1, 2, -3]
    print("scorekit: warning: a line of ours", file=sys.stderr)
    node = eng.ray._private.worker.global_worker.node
    ip = node.node_ip_address
print(json.dumps({"seen": seen, "node_ip": ip}))
"""

LOCAL = ("'127.0.0.1'", "('127.0.0.1'", "'::1'", "('::1'", "'localhost'", "('localhost'")


def test_local_cluster_connects_only_to_loopback():
    proc = subprocess.run([sys.executable, "-c", AUDITED], capture_output=True, text=True, env=_env(),
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["node_ip"] == "127.0.0.1"
    inet = [(kind, target) for kind, target in report["seen"] if not target.startswith(("'/", "b'", "'\\x00"))]
    assert inet, "the audit hook saw no network use at all: it would prove nothing"
    # quiet=True: Ray's own lines dropped, ours passed on
    assert proc.stderr == "scorekit: warning: a line of ours\n"
    outside = [(kind, target) for kind, target in inet if not target.startswith(LOCAL)]
    assert outside == [], f"the driver reached outside the machine: {outside}"


def _unshare_works() -> bool:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    try:
        return subprocess.run(["unshare", "-n", "sh", "-c", "ip link set lo up"], capture_output=True,
                              timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.mark.skipif(not _unshare_works(), reason="needs `unshare -n` (root or user namespaces)")
def test_ray_run_inside_a_loopback_only_network(tmp_path):
    """No route anywhere but 127.0.0.1: the Ray run succeeds, silently with -q, with the local
    engine's numbers."""
    local = tmp_path / "local.json"
    proc = subprocess.run([sys.executable, "-m", "scorekit", *RETRIEVAL, "-q", "-o", str(local)], env=_env(),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    inside = tmp_path / "ray.json"
    cmd = " ".join(map(_quote, [sys.executable, "-m", "scorekit", *RETRIEVAL, "--engine", "ray", "-q",
                                "-o", str(inside)]))
    proc = subprocess.run(["unshare", "-n", "sh", "-c", f"ip link set lo up && {cmd}"], env=_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "" and proc.stdout == ""          # -q: Ray's own logging silenced too
    a, b = (json.loads(p.read_text()) for p in (local, inside))
    assert a["metrics"] == b["metrics"] and a["per_item"] == b["per_item"]


def _quote(s: str) -> str:
    import shlex

    return shlex.quote(s)


def _one_line(proc) -> str:
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


@pytest.mark.parametrize("how", ["option", "env"])
@pytest.mark.parametrize("address", ["bogus:xyz", "host:0", "no-port", "a b:1"])
def test_unparsable_address_is_a_usage_error(tmp_path, how, address):
    args = [*RETRIEVAL, "--engine", "ray", "-o", str(tmp_path / "o.json")]
    env = _env()
    if how == "option":
        args += ["--address", address]
    else:
        env["RAY_ADDRESS"] = address
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "scorekit", *args], env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2
    line = _one_line(proc)
    assert ("--address" if how == "option" else "RAY_ADDRESS") in line and address.split(":")[0] in line
    assert time.monotonic() - t0 < 20 and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("how", ["option", "env"])
def test_refused_address_fails_at_once(tmp_path, how):
    with socket.socket() as s:              # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"127.0.0.1:{port}"
    args = [*RETRIEVAL, "--engine", "ray", "-o", str(tmp_path / "o.json")]
    env = _env()
    if how == "option":
        args += ["--address", address]
    else:
        env["RAY_ADDRESS"] = address
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "scorekit", *args], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2
    line = _one_line(proc)
    assert address in line and "cannot join" in line
    assert time.monotonic() - t0 < 30 and list(tmp_path.iterdir()) == []


def test_address_that_answers_but_is_not_ray_is_bounded(tmp_path):
    """A port that accepts connections but never speaks Ray: Ray's own join would retry for
    minutes; --ray-timeout bounds it, one line, exit 2."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    address = f"127.0.0.1:{server.getsockname()[1]}"
    try:
        t0 = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "scorekit", *RETRIEVAL, "--engine", "ray", "--address",
                               address, "--ray-timeout", "4", "-o", str(tmp_path / "o.json")], env=_env(),
                              capture_output=True, text=True, timeout=120)
        took = time.monotonic() - t0
    finally:
        server.close()
    assert proc.returncode == 2
    line = _one_line(proc)
    assert address in line and "4 s" in line and "--ray-timeout" in line
    assert took < 30 and list(tmp_path.iterdir()) == []


def test_timeout_env_is_checked():
    proc = subprocess.run([sys.executable, "-m", "scorekit", *RETRIEVAL, "--engine", "ray", "--address",
                           "127.0.0.1:1"], env=_env(SCOREKIT_RAY_TIMEOUT="soon"), capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and "SCOREKIT_RAY_TIMEOUT" in _one_line(proc)


def test_quiet_filter_knows_rays_lines():
    """The lines a quiet `caption --engine ray` with BERTScore printed before -q held them back."""
    from scorekit.engine.ray_engine import _RAY_LINE

    ray_lines = [
        "2026-11-26 01:55:55,927\tWARNING util.py:650 -- The argument ``concurrency`` is deprecated in Ray 2.51.",
        "[2026-11-26 01:55:56,335 E 21216 21216] core_worker.cc:2465: Actor with class name: "
        "'MapWorker(MapBatches(_NeuralActor))' has constructor arguments in the object store",
        "2026-11-26 01:56:07,833\tINFO streaming_executor.py:371 -- Dataset execution finished in 11.53 seconds",
        "(MapWorker(MapBatches(_NeuralActor)) pid=123) loading model",
    ]
    ours = ["scorekit: warning: skipped BERTScore: no model", "sweep: 3/5 done (1.0 s)"]
    assert all(_RAY_LINE.match(line) for line in ray_lines)
    assert not any(_RAY_LINE.match(line) for line in ours)
