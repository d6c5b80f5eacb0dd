"""Shared fixtures: a fresh default graph per test, and the paths CMake
passes (tests/python/CMakeLists.txt)."""
import os

import pytest

import minflow as mf


@pytest.fixture(autouse=True)
def graph():
    """Each test builds into its own default graph."""
    g = mf.Graph()
    with g.as_default():
        yield g


def _env(name):
    value = os.environ.get(name)
    if not value:
        pytest.skip("%s is not set (run the tests through ctest)" % name)
    return value


@pytest.fixture
def cli():
    return _env("MINFLOW_CLI")


@pytest.fixture
def zero_out_library():
    return _env("MINFLOW_ZERO_OUT_LIBRARY")


@pytest.fixture
def source_dir():
    return os.environ.get(
        "MINFLOW_SOURCE_DIR",
        os.path.join(os.path.dirname(__file__), "..", ".."))
