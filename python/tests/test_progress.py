"""Progress bars: drawn for long builds and runs where someone watches (a terminal, a
notebook, or when asked), silent elsewhere, and never able to break the work they show."""

import sys
import types

import pytest

import swapless as sl
from swapless import _progress


@pytest.fixture
def at_once(monkeypatch):
    """Bars from the first report on, so that small graphs show them."""
    monkeypatch.setattr(_progress, "QUIET_SECONDS", 0.0)


def test_a_build_asked_to_shows_its_phases_on_stderr(tmp_path, capfd, at_once):
    sl.generate("kron", scale=17, output=tmp_path / "g.sl", progress=True)
    err = capfd.readouterr().err
    assert "generating" in err and "\r" in err, err
    # The line is cleared at the end, so the prompt comes back on a clean line.
    assert err.endswith("\r"), err[-200:]


@pytest.mark.filterwarnings("ignore:pr stopped")
def test_a_run_asked_to_shows_its_trial_and_passes(tmp_path, capfd, at_once):
    g = sl.generate("kron", scale=16, output=tmp_path / "g.sl", progress=False)
    capfd.readouterr()
    g = sl.open(g.path, progress=True)
    sl.pagerank(g, tol=0.0, max_iter=300)
    err = capfd.readouterr().err
    assert "pr: trial 1 of 1, pass " in err, err


@pytest.mark.filterwarnings("ignore:pr stopped")
def test_nothing_is_drawn_off_a_terminal_or_when_turned_off(tmp_path, capfd, at_once):
    # pytest's stderr is not a terminal: the default draws nothing.
    g = sl.generate("kron", scale=17, output=tmp_path / "a.sl")
    sl.pagerank(g, tol=0.0, max_iter=300)
    sl.generate("kron", scale=17, output=tmp_path / "b.sl", progress=False)
    assert capfd.readouterr().err == ""


def test_short_work_stays_quiet(tmp_path, capfd):
    g = sl.generate("kron", scale=10, output=tmp_path / "g.sl", progress=True)
    sl.bfs(g, source=0)
    assert capfd.readouterr().err == ""


def test_a_notebook_gets_a_bar_under_the_cell(tmp_path, monkeypatch, capfd, at_once):
    shown = []

    class Handle:
        def update(self, content):
            shown.append(("update", content.data))

    fake = types.ModuleType("IPython.display")
    fake.HTML = lambda text: types.SimpleNamespace(data=text)

    def display(content, display_id=False):
        shown.append(("display", content.data))
        return Handle()

    fake.display = display
    monkeypatch.setitem(sys.modules, "IPython.display", fake)
    monkeypatch.setattr(_progress, "_in_notebook", lambda: True)
    sl.generate("kron", scale=17, output=tmp_path / "g.sl")
    assert shown and shown[0][0] == "display", shown
    assert any("<progress" in text or "generating" in text for _, text in shown)
    assert shown[-1] == ("update", shown[-1][1]) and "done in" in shown[-1][1], shown[-1]
    assert capfd.readouterr().err == ""


def test_an_exception_in_the_bar_stops_the_build_and_leaves_no_file(tmp_path):
    output = tmp_path / "g.sl"

    def broken(state):
        raise RuntimeError("the bar broke")

    with pytest.raises(RuntimeError, match="the bar broke"):
        sl._core.generate("kron", str(output), 19, progress=broken)
    assert not output.exists()
    assert [p.name for p in tmp_path.iterdir()] == []


@pytest.mark.parametrize("value", ["yes", 1, 0.5])
def test_progress_takes_only_booleans_or_none(tmp_path, value):
    with pytest.raises(TypeError, match="progress must be True, False or None"):
        sl.generate("kron", scale=8, output=tmp_path / "g.sl", progress=value)


def test_the_backend_shows_progress_as_configured(capfd, at_once):
    nx = pytest.importorskip("networkx")
    config = nx.config.backends.swapless
    assert config.progress is None  # where someone watches: not pytest's stderr
    G = nx.gnm_random_graph(20_000, 200_000, seed=1)
    nx.pagerank(G, backend="swapless")
    assert capfd.readouterr().err == ""
    config.progress = True
    try:
        H = nx.gnm_random_graph(20_000, 200_000, seed=2)
        nx.pagerank(H, backend="swapless")
    finally:
        config.progress = None
    err = capfd.readouterr().err
    # The conversion's build, then the run.
    assert "graph.sl" in err and "pr64: trial 1 of 1" in err, err
