"""The report tests run on real output: every family's command on examples/, once per session."""

from __future__ import annotations

import pytest

from report_helpers import RealOutputs


@pytest.fixture(scope="session")
def real(tmp_path_factory) -> RealOutputs:
    return RealOutputs(tmp_path_factory.mktemp("real-outputs"))
