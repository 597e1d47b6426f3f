"""Every module of the package imports on the supported Python (a module no test reaches still has to load)."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import amg.agents
import amg.cli
import amg.evaluation
import amg.graphs
import amg.prompts
import amg.testing
import amg.tools

MODULES = sorted(
    info.name
    for package in (amg.agents, amg.cli, amg.evaluation, amg.graphs, amg.prompts, amg.testing, amg.tools)
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
)


@pytest.mark.parametrize("name", MODULES)
def test_module_imports(name):
    importlib.import_module(name)
