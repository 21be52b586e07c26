"""Each local Ray cluster gets this process's own token, so two starting at once cannot race on
~/.ray/auth_token, and a second start in one process presents the token the first one cached."""

from __future__ import annotations

import os

import pytest

from scorekit.engine import ray_engine
from scorekit.engine.ray_engine import _private_local_token

AUTH = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")


@pytest.fixture
def clean_env(monkeypatch):
    for k in AUTH:  # setenv first, so whatever the test sets is undone afterwards
        monkeypatch.setenv(k, "")
        monkeypatch.delenv(k)
    return monkeypatch


def test_one_private_token_per_process(clean_env):
    _private_local_token()
    token = os.environ["RAY_AUTH_TOKEN"]
    assert token == ray_engine._LOCAL_TOKEN and len(token) == 64 and int(token, 16) >= 0
    assert "RAY_AUTH_MODE" not in os.environ  # ray.init switches the mode itself
    # someone restores the environment between two local starts (the docs test does): the
    # second start presents the same token, the one Ray's driver cached at the first
    del os.environ["RAY_AUTH_TOKEN"]
    os.environ["RAY_AUTH_MODE"] = "token"     # left behind by Ray's first init
    _private_local_token()
    assert os.environ["RAY_AUTH_TOKEN"] == token


@pytest.mark.parametrize("key,value", [("RAY_AUTH_MODE", "disabled"), ("RAY_AUTH_TOKEN", "abc"),
                                       ("RAY_AUTH_TOKEN_PATH", "/some/where")])
def test_user_setting_is_kept(clean_env, key, value):
    clean_env.setenv(key, value)
    _private_local_token()
    assert os.environ[key] == value
    assert all(os.environ.get(k) is None for k in AUTH if k != key)
