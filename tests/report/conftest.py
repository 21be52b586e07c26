"""The report tests run on real output: every family's command on examples/, once per session."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from tests.report.report_helpers import CHROMEDRIVER, CHROMIUM, RealOutputs


@pytest.fixture(scope="session")
def real(tmp_path_factory) -> RealOutputs:
    return RealOutputs(tmp_path_factory.mktemp("real-outputs"))


@pytest.fixture(scope="session")
def driver():
    os.environ["SE_OFFLINE"] = "true"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common import selenium_manager

    def trap(*a, **k):  # pragma: no cover - only runs if selenium tried to fetch a browser/driver
        raise AssertionError("selenium-manager was invoked")

    saved = selenium_manager.SeleniumManager.binary_paths
    selenium_manager.SeleniumManager.binary_paths = trap
    profile = tempfile.mkdtemp(prefix="sk-chromium-")
    opts = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                "--hide-scrollbars", f"--user-data-dir={profile}"):
        opts.add_argument(arg)
    opts.binary_location = CHROMIUM
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    try:
        yield drv
    finally:
        drv.quit()
        selenium_manager.SeleniumManager.binary_paths = saved
        shutil.rmtree(profile, ignore_errors=True)


