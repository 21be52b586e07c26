"""Uniform frame sampling from a video synthesised with PyAV in the test."""

from __future__ import annotations

import numpy as np
import pytest

av = pytest.importorskip("av")

from scorekit.errors import InputError  # noqa: E402
from scorekit.neural.video import frames_of, sample_frames, uniform_indices  # noqa: E402


def level(img) -> int:
    return int(round(np.asarray(img, dtype=np.float64).mean() / 10))


def test_uniform_indices_are_segment_centres():
    assert uniform_indices(20, 4) == [2, 7, 12, 17]
    assert uniform_indices(10, 1) == [5]
    assert uniform_indices(3, 6) == [0, 0, 1, 1, 2, 2]  # shorter than k: frames repeat
    for n in range(1, 40):
        for k in range(1, 12):
            idx = uniform_indices(n, k)
            assert len(idx) == k and idx == sorted(idx) and 0 <= idx[0] and idx[-1] < n


@pytest.mark.parametrize("codec,container", [("ffv1", "mkv"), ("mpeg4", "mp4")])
def test_samples_the_right_frames(tmp_path, make_video, codec, container):
    path = make_video(tmp_path / "clip", n_frames=20, codec=codec, container=container)
    frames = sample_frames(path, 4)
    assert len(frames) == 4
    assert all(f.mode == "RGB" and f.size == (48, 32) for f in frames)
    assert [level(f) for f in frames] == [2, 7, 12, 17]


def test_more_frames_than_the_video_has(tmp_path, make_video):
    path = make_video(tmp_path / "short", n_frames=3)
    assert [level(f) for f in sample_frames(path, 5)] == [0, 0, 1, 2, 2]


def test_unreadable_and_missing_videos_name_the_file(tmp_path):
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"this is not a video" * 20)
    with pytest.raises(InputError, match="broken.mp4: cannot read video"):
        sample_frames(bad, 4)
    with pytest.raises(InputError, match="missing.mp4: video file not found"):
        sample_frames(tmp_path / "missing.mp4", 4)


def test_given_frames_pass_through():
    from PIL import Image

    frames = [Image.new("RGB", (8, 8), (i, i, i)) for i in range(3)]
    assert frames_of(frames) == frames
    with pytest.raises(InputError):
        frames_of([])
