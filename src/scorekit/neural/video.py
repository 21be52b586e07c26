"""Frames for video CLIPScore: k frames sampled uniformly from a video file (PyAV), or given frames.

Uniform sampling takes the centre frame of each of k equal segments of the video,
``index_i = floor((i + 0.5) * n / k)`` for i = 0..k-1 (n = the number of decoded frames), so the
frames cover the whole clip and never sit on its very first/last frame; a video with fewer than k
frames repeats frames rather than failing.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from scorekit.errors import InputError, MissingDependencyError


def uniform_indices(n_frames: int, k: int) -> list[int]:
    """Centre frame of each of ``k`` equal segments of ``n_frames`` frames."""
    if k < 1:
        raise ValueError("k must be at least 1")
    return [min(n_frames - 1, int((i + 0.5) * n_frames / k)) for i in range(k)]


def _require_av():
    try:
        import av
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingDependencyError("reading videos needs PyAV: pip install av (or pass frames)") from exc
    return av


def _count_frames(av, path: Path) -> int:
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        return sum(1 for _ in container.decode(stream))


def sample_frames(path: str | os.PathLike, k: int = 8) -> list:
    """``k`` uniformly spaced frames of the video at ``path`` as RGB PIL images."""
    av = _require_av()
    path = Path(path)
    if not path.is_file():
        raise InputError("video file not found", path)
    try:
        with av.open(str(path)) as container:
            if not container.streams.video:
                raise InputError("no video stream in this file", path)
            declared = container.streams.video[0].frames
        n = declared if declared and declared > 0 else _count_frames(av, path)
        if n <= 0:
            raise InputError("the video has no frames", path)
        wanted = uniform_indices(n, k)
        need = set(wanted)
        got: dict[int, object] = {}
        with av.open(str(path)) as container:
            stream = container.streams.video[0]
            for i, frame in enumerate(container.decode(stream)):
                if i in need:
                    got[i] = frame.to_image().convert("RGB")
                if i >= max(need):
                    break
        if not got:
            raise InputError("could not decode any frame", path)
        # a container that over-declared its frame count: fall back to the last decoded frame
        last = got[max(got)]
        return [got.get(i, last) for i in wanted]
    except InputError:
        raise
    except Exception as exc:  # av.error.* (InvalidDataError, ...), OSError
        raise InputError(f"cannot read video: {exc}".splitlines()[0], path) from exc


def frames_of(video, k: int = 8) -> list:
    """A video given as a file path (sampled to ``k`` frames) or as its frames (images/paths)."""
    if isinstance(video, (str, os.PathLike)):
        return sample_frames(video, k)
    if isinstance(video, Sequence) and len(video) > 0:
        return list(video)
    raise InputError(f"expected a video file or a non-empty list of frames, got {type(video).__name__}")


__all__ = ["sample_frames", "uniform_indices", "frames_of"]
