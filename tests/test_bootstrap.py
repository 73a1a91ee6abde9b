"""bin/bootstrap: playing installs the package alone, the tests add their extras, and the
stamp says which are installed (issue 75: a 916 MB .venv just to play)."""
import importlib.machinery
import importlib.util
import os

from conftest import ROOT


def _bootstrap():
    path = os.path.join(ROOT, "bin", "bootstrap")
    loader = importlib.machinery.SourceFileLoader("bootstrap_script", path)
    spec = importlib.util.spec_from_loader("bootstrap_script", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def test_playing_installs_no_test_extras_and_the_tests_add_them():
    b = _bootstrap()
    assert b.EXTRAS["gui"] == b.EXTRAS["engine"] == b.EXTRAS["warmup"] == ()
    assert b.EXTRAS["test"] == b.EXTRAS["prepare"] == ("test",)
    assert b.to_install("", "h1", ()) == ()                       # a fresh .venv: the package
    assert b.to_install("h1\n", "h1", ()) is None                 # installed: nothing to do
    assert b.to_install("h1\n", "h1", ("test",)) == ("test",)     # the tests add their extras
    assert b.to_install("h1 test\n", "h1", ()) is None            # playing after the tests
    assert b.to_install("h1 test\n", "h2", ()) == ()              # a new pyproject: again
    assert b.to_install("h1 test\n", "h1", ("test",)) is None


def test_the_test_extras_hold_what_only_the_tests_need():
    import tomllib
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    base = " ".join(project["dependencies"])
    for heavy in ("numba-cuda", "nvidia", "dask", "playwright", "pytest"):
        assert heavy not in base
        assert any(heavy in d for d in project["optional-dependencies"]["test"])
