"""A folder of several splits is read by split name, never by sort order."""

import json
from pathlib import Path

import pytest

from scorekit.errors import InputError
from scorekit.summarization.data import load_corpus, split_files, split_of_file


def write(path: Path, ids):
    path.write_text("\n".join(json.dumps({"id": i, "article": f"Article {i}.", "highlights": f"Point {i}."})
                              for i in ids) + "\n")


def test_split_of_file_names():
    assert split_of_file(Path("test-00000-of-00001.parquet")) == "test"
    assert split_of_file(Path("train.jsonl")) == "train"
    assert split_of_file(Path("validation_0.csv")) == "validation"
    assert split_of_file(Path("dev.jsonl")) == "validation"
    assert split_of_file(Path("news.jsonl")) is None
    assert split_of_file(Path("testing.jsonl")) is None


def test_folder_with_splits_gives_only_the_split_asked_for(tmp_path):
    write(tmp_path / "test-00000.jsonl", ["t1", "t2"])
    write(tmp_path / "train-00000.jsonl", ["a1", "a2"])
    write(tmp_path / "train-00001.jsonl", ["a3"])
    assert [Path(f).name for f in split_files(tmp_path, "train")] == ["train-00000.jsonl", "train-00001.jsonl"]
    assert [Path(f).name for f in split_files(tmp_path, "test")] == ["test-00000.jsonl"]
    with pytest.raises(InputError, match="no files of split 'validation'.*test, train"):
        split_files(tmp_path, "validation")


def test_folder_without_split_names_is_one_split(tmp_path):
    write(tmp_path / "a.jsonl", ["x"])
    write(tmp_path / "b.jsonl", ["y"])
    assert len(split_files(tmp_path, "test")) == 2


def test_load_corpus_reads_only_that_split(tmp_path):
    pytest.importorskip("datasets")
    data = tmp_path / "cnn"
    data.mkdir()
    write(data / "test-00000.jsonl", ["t1", "t2"])
    write(data / "train-00000.jsonl", ["a1", "a2", "a3"])
    cache = str(tmp_path / "cache")
    assert load_corpus("cnn_dailymail", split="train", files=data, cache_dir=cache).ids == ["a1", "a2", "a3"]
    assert load_corpus("cnn_dailymail", split="test", files=data, cache_dir=cache).ids == ["t1", "t2"]
