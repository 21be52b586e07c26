"""Every registered metric class, of every family, has a case in the shared harness
(tests/harness.py, issue #26 item 7).

The convention: a test module that runs harness cases declares them in a module-level
``HARNESS_CASES`` list. This test walks the ``tests`` package (``pkgutil.walk_packages``),
imports the test modules that declare ``HARNESS_CASES`` (reading each file's text first, so the
other modules are not imported for nothing), collects the metric classes their cases cover and
fails naming every class in ``REGISTRY.classes()`` that none covers — a metric added to any family
(a retrieval family added to ``FAMILIES``, a topic or ABSA measure put on the contract) fails here
until its case exists."""

from __future__ import annotations

import importlib
import pkgutil
import types
from pathlib import Path

import tests
from scorekit.metrics import REGISTRY
from tests.harness import MetricCase, covered_classes

TESTS = Path(__file__).resolve().parents[1]


def harness_modules() -> list[types.ModuleType]:
    """The modules of the ``tests`` package that declare ``HARNESS_CASES``."""
    assert Path(tests.__file__).resolve().parent == TESTS, f"`tests` is {tests.__file__}, not this checkout's"
    out = []
    for info in pkgutil.walk_packages(tests.__path__, "tests."):
        if info.ispkg:
            continue
        spec = info.module_finder.find_spec(info.name, None)
        if spec is None or not spec.origin or "HARNESS_CASES" not in Path(spec.origin).read_text(encoding="utf-8"):
            continue
        out.append(importlib.import_module(info.name))
    return out


def missing_cases(classes, modules) -> list[str]:
    covered = covered_classes(modules)
    return [f"{c.family}:{c.name} ({c.__module__}.{c.__qualname__})" for c in classes if c not in covered]


def test_every_registered_metric_class_has_a_harness_case():
    modules = harness_modules()
    assert any(getattr(m, "HARNESS_CASES", None) for m in modules), "no module declares HARNESS_CASES"
    missing = missing_cases(REGISTRY.classes(), modules)
    assert not missing, ("registered metric classes with no harness case (add a MetricCase to a test module's "
                         "HARNESS_CASES, see tests/harness.py):\n  " + "\n  ".join(missing))


def test_every_case_can_run_and_names_its_oracle():
    for mod in harness_modules():
        for case in getattr(mod, "HARNESS_CASES", ()):
            where = f"{mod.__name__}: {case.name}"
            assert isinstance(case, MetricCase), where
            assert case.batches is not None or case.batch is not None or case.fixture, \
                f"{where}: no batches, no batch and no fixture that makes one"
            assert case.oracle is not None or case.oracle_test, f"{where}: no oracle and no oracle test named"
            assert case.empty in ("nan", "error", "counts"), where


def test_a_class_without_a_case_is_named():
    """The check above can fail: a module covering one class leaves the others named."""
    classes = REGISTRY.classes("caption")[:3]
    fake = types.ModuleType("tests.fake_harness")
    fake.HARNESS_CASES = [MetricCase(classes[0], batch=object(), oracle_test="-")]
    missing = missing_cases(classes, [fake])
    assert missing == [f"caption:{c.name} ({c.__module__}.{c.__qualname__})" for c in classes[1:]]
