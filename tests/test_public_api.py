"""Every public name imports, and the core import stays light."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

PACKAGES = ["sotopia_tom_env", "scenarios"]


@pytest.mark.parametrize("package", PACKAGES)
def test_all_names_import(package):
    module = importlib.import_module(package)
    for name in module.__all__:
        assert hasattr(module, name), f"{package}.{name}"


def test_import_does_not_pull_heavy_libraries():
    code = (
        "import sys, sotopia_tom_env, scenarios; "
        "heavy = [m for m in ('torch', 'transformers', 'vllm', 'openai', 'trl', 'matplotlib') if m in sys.modules]; "
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_scenarios_package_imports_nothing_from_the_project():
    code = (
        "import sys, scenarios; "
        "print([m for m in sys.modules if m.split('.')[0] in ('sotopia_tom_env', 'rewards', 'policies', 'training')])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
