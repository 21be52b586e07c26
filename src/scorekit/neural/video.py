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


def sample_frames(path: str | os.PathLike, k: int = 8) -> list:
    """``k`` uniformly spaced frames of the video at ``path`` as RGB PIL images."""
    try:
        import av
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingDependencyError("reading videos needs PyAV: pip install av (or pass frames)") from exc
    path = Path(path)
    if not path.is_file():
        raise InputError("video file not found", path)
    try:
        with av.open(str(path)) as container:
            if not container.streams.video:
                raise InputError("no video stream in this file", path)
            n = container.streams.video[0].frames
            if not n or n <= 0:
                n = sum(1 for _ in container.decode(container.streams.video[0]))
        if n <= 0:
            raise InputError("the video has no frames", path)
        wanted = uniform_indices(n, k)
        got: dict[int, object] = {}
        with av.open(str(path)) as container:
            for i, frame in enumerate(container.decode(container.streams.video[0])):
                if i in wanted:
                    got[i] = frame.to_image().convert("RGB")
                if i >= max(wanted):
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
