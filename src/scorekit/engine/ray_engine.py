"""The Ray engine (docs/scale-out.md): shard tasks on a local or remote Ray cluster, merged on
the driver. ``RayEngine()`` joins the cluster at ``address`` (or ``$RAY_ADDRESS``), otherwise starts
a local, offline Ray with this machine's cores and shuts it down on exit. Tasks are retried when a
worker dies; a :class:`~scorekit.errors.ScorekitError` raised inside a task reaches the caller
unchanged and fails the whole job.
"""

from __future__ import annotations

import os
import re
import secrets
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import contextmanager
from typing import Any

from scorekit.errors import MissingDependencyError, ScorekitError, UnknownNameError

TASK_RETRIES = 3


def _require_ray():
    try:
        import ray
    except ImportError:
        raise MissingDependencyError("--engine ray needs Ray: install the ray extra (pip install -e '.[ray]' in the scorekit "
                                     "checkout, or pip install 'scorekit-VERSION-py3-none-any.whl[ray]')") from None
    return ray


_LOCAL_TOKEN = secrets.token_hex(32)  # this process's token for the local clusters it starts


def _private_local_token() -> None:
    """Give a local cluster this process's own token (:data:`_LOCAL_TOKEN`), unless the user
    chose one (``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH`` or ``RAY_AUTH_MODE=disabled``).

    Ray 2.5x+ authenticates every local ``ray.init()`` by one token shared in
    ``~/.ray/auth_token``, written by whichever process gets there first, so two local clusters
    starting at once race on that file (``InvalidAuthToken``). A token in the environment is read
    first and inherited by the cluster's processes, and ``~/.ray`` is never touched. It is set
    again before every local start: Ray's driver caches the token it loaded first.
    """
    env = os.environ
    if env.get("RAY_AUTH_TOKEN") or env.get("RAY_AUTH_TOKEN_PATH") or \
            env.get("RAY_AUTH_MODE", "").lower() == "disabled":
        return
    # Only the token: ray.init() itself switches this process and the cluster to token mode
    # (and refreshes its cached config, which setting RAY_AUTH_MODE here would not).
    env["RAY_AUTH_TOKEN"] = _LOCAL_TOKEN
    try:  # drop a token Ray may have cached from another source (private API: best effort)
        from ray._raylet import AuthenticationTokenLoader

        AuthenticationTokenLoader.instance().reset_cache()
    except (ImportError, AttributeError):
        pass


LOOPBACK = "127.0.0.1"


# A line Ray logged: its C++ core ("[2026-01-01 10:00:00,123 E 123 123] core_worker.cc:..."),
# its Python loggers ("2026-01-01 10:00:00,123\tWARNING util.py:650 -- ...") or a worker's
# forwarded output ("(MapWorker pid=123) ...").
_RAY_LINE = re.compile(r"^(\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ [DIWEF] \d+ \d+\] "
                       r"|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\s+(DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+\S+:\d+ -- "
                       r"|\(\S+ pid=\d+)")


class _HeldStderr:
    """File descriptor 2 (what C++ code writes there included) goes to a temporary file until
    :meth:`release` puts the real stderr (``real``) back and writes out what was held: nothing
    unless ``replay``; without Ray's own log lines unless ``ray_lines`` (``-q``: scorekit's
    warnings arrive, a moment late; Ray's INFO/WARNING/ERROR chatter does not)."""

    def __init__(self) -> None:
        import tempfile

        sys.stderr.flush()
        self.held = tempfile.TemporaryFile()
        self.real = os.dup(2)
        os.dup2(self.held.fileno(), 2)

    def release(self, replay: bool = True, ray_lines: bool = True) -> None:
        try:
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        os.dup2(self.real, 2)
        os.close(self.real)
        self.held.seek(0)
        text = self.held.read()
        self.held.close()
        if not ray_lines:
            text = "".join(ln for ln in text.decode("utf-8", "replace").splitlines(keepends=True)
                           if not _RAY_LINE.match(ln)).encode("utf-8")
        if replay and text:
            os.write(2, text)


def _quiet_ray() -> None:
    """``-q``: no Ray INFO/WARNING lines on the driver and no Ray Data progress bars. (Not
    ``RAY_BACKEND_LOG_LEVEL``: setting it makes Ray's C++ core announce the setting on stderr.)"""
    import logging

    os.environ.setdefault("RAY_DEDUP_LOGS", "1")
    for name in ("ray", "ray.data", "ray.train", "ray.tune"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    try:
        from ray.data import DataContext

        ctx = DataContext.get_current()
        ctx.enable_progress_bars = False
        if hasattr(ctx, "print_on_execution_start"):
            ctx.print_on_execution_start = False
    except Exception:      # Ray Data not installed, or another version's fields
        pass


@contextmanager
def _offline_local(ray):
    """A local cluster stays on this machine: no usage statistics (``RAY_USAGE_STATS_ENABLED=0``);
    the node on the loopback address without Ray asking 8.8.8.8 which address faces the internet
    (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, Ray's single-machine mode, for the cluster's
    processes, and the driver's copy of the constant switched for the start); and an HTTP proxy
    on a closed loopback port for the processes started here, so the head's cloud metadata probe
    (169.254.169.254, metadata.google.internal) fails at once and no name is looked up. The
    driver's environment is put back after the start."""
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    saved = {k: os.environ.get(k) for k in (*_PROXY_VARS, _SINGLE_MACHINE)}
    for k in _PROXY_VARS[4:]:      # the http(s) proxies are set, every other one is unset
        os.environ.pop(k, None)
    os.environ.update({_SINGLE_MACHINE: "0", **dict.fromkeys(_PROXY_VARS[:4], DEAD_PROXY)})
    constants = getattr(getattr(ray, "_private", None), "ray_constants", None)
    before = getattr(constants, "ENABLE_RAY_CLUSTER", None)
    if constants is not None:
        constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        if constants is not None and before is not None:
            constants.ENABLE_RAY_CLUSTER = before
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


_PROXY_VARS = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
               "no_proxy", "NO_PROXY")
DEAD_PROXY = f"http://{LOOPBACK}:9"   # the discard port: nothing listens there
_SINGLE_MACHINE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


TIMEOUT_ENV = "SCOREKIT_RAY_TIMEOUT"
DEFAULT_TIMEOUT_S = 30.0


def parse_address(text: str) -> str:
    """A Ray cluster address as the user gave it, checked: ``HOST:PORT``, ``[IPv6]:PORT``,
    ``ray://HOST:PORT`` (Ray Client) or ``auto`` (the cluster ``ray start`` left on this
    machine). Raises ``ValueError`` with the reason otherwise."""
    text = text.strip()
    if text == "auto":
        return text
    host, sep, port = text.removeprefix("ray://").rpartition(":")
    if not sep or not host:
        raise ValueError("expected HOST:PORT (e.g. 10.0.0.5:6379), ray://HOST:PORT or auto")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host or any(c.isspace() or c in "/[]" for c in host):
        raise ValueError(f"{host!r} is not a host name or IP address")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"port {port!r} is not a number from 1 to 65535")
    return text


def timeout_from_env() -> float:
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_TIMEOUT_S
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise ScorekitError(f"{TIMEOUT_ENV}={raw!r}: expected a number of seconds greater than 0")
    return value


class RayEngine:
    """Context manager around a Ray connection; :meth:`map` runs a function over items.

    Joining ``address`` is bounded by ``timeout`` seconds (default ``$SCOREKIT_RAY_TIMEOUT`` or
    30): the address must accept a connection within it, or the engine fails with one line
    naming it. ``exit_on_timeout`` (the CLI) also bounds Ray's own join after that: should Ray
    still be waiting when the time is up, the process says so in one line and exits 2.
    ``quiet`` silences Ray's own logging (its C++ core's warnings included)."""

    name = "ray"

    def __init__(self, address: str | None = None, *, num_cpus: int | None = None,
                 progress: bool | None = None, retries: int = TASK_RETRIES, quiet: bool = False,
                 timeout: float | None = None, exit_on_timeout: bool = False):
        self.address_from = "--address"
        if not address and os.environ.get("RAY_ADDRESS", "").strip():
            address, self.address_from = os.environ["RAY_ADDRESS"], "RAY_ADDRESS"
        if address:
            try:
                address = parse_address(address)
            except ValueError as exc:
                raise ScorekitError(f"{self.address_from} {address!r}: {exc}") from None
        self.address = address or None
        self.num_cpus = num_cpus
        self.retries = retries
        self.progress = sys.stderr.isatty() if progress is None else progress
        self.quiet = quiet
        self.timeout = timeout_from_env() if timeout is None else float(timeout)
        self.exit_on_timeout = exit_on_timeout
        self._started = False
        self._filter: _HeldStderr | None = None
        self.ray = None

    def _unreachable(self, why: str, waited: bool = True) -> ScorekitError:
        tail = f"; gave up after {self.timeout:g} s (--ray-timeout or {TIMEOUT_ENV})" if waited else ""
        return ScorekitError(f"{self.address_from} {self.address}: cannot join the Ray cluster ({why}{tail})")

    def _probe(self) -> None:
        """Fail fast on an address nothing answers at: one TCP connection, bounded."""
        import socket

        if self.address == "auto":
            return
        host, _, port = self.address.removeprefix("ray://").rpartition(":")
        try:
            with socket.create_connection((host.strip("[]"), int(port)), timeout=self.timeout):
                pass
        except socket.timeout:
            raise self._unreachable("no answer") from None
        except OSError as exc:
            raise self._unreachable(exc.strerror or str(exc), waited=False) from None

    def _watchdog(self, fd: int = 2):
        """For the CLI: end the process in one line if Ray's join outlives the timeout (Ray
        retries in C++ for minutes, where no Python signal can interrupt it)."""
        import threading

        message = str(self._unreachable("Ray did not answer"))

        def fire() -> None:
            try:
                os.write(fd, f"scorekit: error: {message}\n".encode())
            finally:
                os._exit(2)

        timer = threading.Timer(self.timeout, fire)
        timer.daemon = True
        timer.start()
        return timer

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> "RayEngine":
        ray = _require_ray()
        self.ray = ray
        if ray.is_initialized():
            return self
        kw: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                              "configure_logging": True, "logging_level": "CRITICAL" if self.quiet else "ERROR"}
        if self.quiet:
            _quiet_ray()
        # Workers import scorekit from the same place the driver does.
        src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        kw["runtime_env"] = {"env_vars": {"PYTHONPATH": os.pathsep.join(
            [src, *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]]),
            "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}}
        import signal
        import threading

        in_main = threading.current_thread() is threading.main_thread()
        sigterm = signal.getsignal(signal.SIGTERM) if in_main else None
        try:
            if self.address:
                self._probe()
                # Ray's C++ core prints a WARNING line per failed attempt; hold them back while
                # joining, so a failure is our one line (and a success shows them unless -q)
                held, ok = _HeldStderr(), False
                timer = self._watchdog(held.real) if self.exit_on_timeout else None
                try:
                    ray.init(address=self.address, **kw)
                    ok = True
                finally:
                    if timer is not None:
                        timer.cancel()
                    held.release(replay=ok and not self.quiet)
            else:
                _private_local_token()
                cpus = self.num_cpus or int(os.environ.get("SCOREKIT_RAY_NUM_CPUS") or 0) or os.cpu_count()
                with _offline_local(ray):
                    ray.init(num_cpus=cpus, _node_ip_address=LOOPBACK, **kw)
            self._filter = _HeldStderr() if self.quiet else None
        except ConnectionError as exc:
            raise self._unreachable(str(exc), waited=False) from None
        finally:
            # ray.init replaces the driver's SIGTERM handler with one that exits at once; keep
            # the CLI's, which rolls the staged outputs back (and shuts Ray down on the way out)
            if in_main and callable(sigterm):
                signal.signal(signal.SIGTERM, sigterm)
        self._started = True
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            if self._started and self.ray is not None:
                self.ray.shutdown()
                self._started = False
        finally:
            if self._filter is not None:
                self._filter.release(ray_lines=False)
                self._filter = None

    @property
    def n_workers(self) -> int:
        return max(1, int(self.ray.cluster_resources().get("CPU", 1)))

    # ------------------------------------------------------------------ work
    def map(self, fn: Callable[..., Any], items: Sequence[Any], *, args: Iterable[Any] = (),
            desc: str = "shards", **options: Any) -> list[Any]:
        """``[fn(item, *args) for item in items]`` as Ray tasks, results in item order."""
        remote = self.ray.remote(max_retries=self.retries, retry_exceptions=False, **options)(fn)
        args = tuple(args)
        return self.wait([remote.remote(item, *args) for item in items], desc)

    def map_model(self, make: Callable[..., Any], make_args: tuple, fn: Callable[[Any, Any], Any],
                  items: Sequence[Any], *, desc: str = "shards") -> list[Any]:
        """``[fn(state, item) for item in items]`` on a pool of actors that each build ``state =
        make(*make_args)`` once (a model, loaded from local files): one actor per GPU when the
        cluster has GPUs (``num_gpus=1`` each), else one per CPU; items go round robin. An actor
        that dies is restarted and its lost calls re-run, so a lost worker costs time, never a
        number."""
        ray = self.ray
        gpus = int(ray.cluster_resources().get("GPU", 0))
        n = max(1, min(len(items), gpus or self.n_workers))
        cls = ray.remote(num_gpus=1 if gpus else 0, num_cpus=0 if gpus else 1,
                         max_restarts=self.retries, max_task_retries=self.retries)(_StateActor)
        actors = [cls.remote(make, make_args) for _ in range(n)]
        try:
            refs = [actors[i % n].run.remote(fn, item) for i, item in enumerate(items)]
            return self.wait(refs, desc=desc)
        finally:
            for a in actors:
                ray.kill(a)

    def map_split(self, fn: Callable[..., Any], items: Sequence[Any], n: int, *,
                  desc: str = "shards") -> tuple[list[tuple], list[Any]]:
        """``fn(item, n)`` as Ray tasks with ``n + 1`` returns: each item's ``n`` parts stay in the
        object store (their handles), the last values come back."""
        remote = self.ray.remote(max_retries=self.retries, num_returns=n + 1)(fn)
        refs = [remote.remote(item, n) for item in items]
        return [tuple(r[:n]) for r in refs], self.wait([r[n] for r in refs], desc)

    @staticmethod
    def fetch(parts: Sequence[Any]) -> list[Any]:
        """The values of :meth:`map_split`'s handles, on a worker."""
        return _require_ray().get(list(parts))

    def wait(self, refs: list, desc: str = "shards") -> list[Any]:
        ray = self.ray
        index = {r: i for i, r in enumerate(refs)}
        out: list[Any] = [None] * len(refs)
        pending = list(refs)
        start = time.monotonic()
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for r in ready:
                try:
                    out[index[r]] = ray.get(r)
                except ray.exceptions.RayTaskError as exc:
                    cause = getattr(exc, "cause", None)
                    if isinstance(cause, ScorekitError):
                        for p in pending:
                            ray.cancel(p, force=True)
                        raise cause from None
                    raise
            if self.progress:
                done, took = len(refs) - len(pending), time.monotonic() - start
                sys.stderr.write(f"\r{desc}: {done}/{len(refs)} done ({took:.1f} s)")
                sys.stderr.flush()
        if self.progress and refs:
            sys.stderr.write("\n")
        return out


class _StateActor:
    """One Ray actor of :meth:`RayEngine.map_model`: its state (a model) built once."""

    def __init__(self, make: Callable[..., Any], make_args: tuple):
        self.state = make(*make_args)

    def run(self, fn: Callable[[Any, Any], Any], item: Any) -> Any:
        return fn(self.state, item)


def get_engine(name: str | None, address: str | None = None, **kw: Any):
    """``None`` for the local engine (callers then run in-process), a RayEngine for ``ray``."""
    if name in (None, "local"):
        if address:
            raise ScorekitError("--address needs --engine ray")
        return None
    if name == "ray":
        return RayEngine(address, **kw)
    raise UnknownNameError("engine", name, ["local", "ray"])
