"""Checkpoints from Python: ``checkpoint=FOLDER`` resumes a killed run by itself and
gives the uninterrupted answer; checkpoints of another run and bad intervals raise."""

import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import swapless as sl

# PageRank runs a fixed 12 iterations here, below its tolerance of 0, on purpose.
pytestmark = pytest.mark.filterwarnings("ignore:pr stopped")


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    folder = tmp_path_factory.mktemp("checkpoint")
    return sl.generate("kron", scale=12, degree=8, output=str(folder / "kron12.sl"))


# Runs a kernel on the graph with checkpoints after every step, in a child interpreter
# that the test hook kills after its second checkpoint.
CHILD = textwrap.dedent("""
    import sys, swapless as sl
    g = sl.open(sys.argv[1], memory=sys.argv[3], tier=sys.argv[4])
    kernel = getattr(sl, sys.argv[5])
    kwargs = {"tol": 0.0, "max_iter": 12} if sys.argv[5] == "pagerank" else {}
    kernel(g, checkpoint=sys.argv[2], checkpoint_every=1, **kwargs)
""")


def killed_after_two_checkpoints(graph, folder, memory, tier, kernel):
    env = dict(os.environ, SWAPLESS_TEST_KILL="after-checkpoint:2")
    child = subprocess.run([sys.executable, "-c", CHILD, graph.path, str(folder), memory, tier,
                            kernel], env=env, capture_output=True)
    # A module built without `--features test-hooks` ignores SWAPLESS_TEST_KILL.
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()


@pytest.mark.parametrize("tier,memory", [("dram", "1G"), ("direct", "24M")])
@pytest.mark.parametrize("kernel", ["pagerank", "maximal_independent_set", "core_number"])
def test_a_killed_run_resumes_by_itself_to_the_uninterrupted_answer(graph, tmp_path, tier,
                                                                     memory, kernel):
    kwargs = {"tol": 0.0, "max_iter": 12} if kernel == "pagerank" else {}
    function = getattr(sl, kernel)
    g = sl.open(graph.path, memory=memory, tier=tier)
    whole = function(g, **kwargs)
    folder = tmp_path / "checkpoints"
    killed_after_two_checkpoints(graph, folder, memory, tier, kernel)
    resumed = function(g, checkpoint=folder, checkpoint_every=1, **kwargs)
    report = g.last_report
    assert report["resumed_from_step"] == 2
    assert report["tier"] == tier
    assert report["peak_rss_bytes"] - report["rss_at_start_bytes"] <= sl._core.memory_bytes(memory)
    np.testing.assert_array_equal(resumed, whole)
    # A finished run removes its checkpoints: the next call starts afresh.
    assert not [name for name in os.listdir(folder) if not name.startswith(".")]
    function(g, checkpoint=folder, **kwargs)
    assert g.last_report["resumed_from_step"] is None


def test_a_checkpoint_of_another_run_or_a_bad_interval_raises(graph, tmp_path):
    folder = tmp_path / "checkpoints"
    killed_after_two_checkpoints(graph, folder, "1G", "dram", "pagerank")
    g = sl.open(graph.path)
    # The option that differs is named by its keyword, with what resumes it.
    with pytest.raises(ValueError, match="a run with alpha=0.85, and this run has alpha=0.9; run with alpha=0.85"):
        sl.pagerank(g, alpha=0.9, tol=0.0, max_iter=12, checkpoint=folder)
    with pytest.raises(ValueError, match="is of another run .its kernel: pr; this run's: bfs"):
        sl.bfs(g, checkpoint=folder)
    with pytest.raises(ValueError, match="checkpoint_every=\"soon\" must be"):
        sl.pagerank(g, checkpoint=tmp_path / "other", checkpoint_every="soon")
    with pytest.raises(TypeError, match="checkpoint_every must be"):
        sl.pagerank(g, checkpoint=tmp_path / "other", checkpoint_every=1.5)
    # The run it belongs to still resumes from it.
    sl.pagerank(g, tol=0.0, max_iter=12, checkpoint=folder, checkpoint_every="1h")
    assert g.last_report["resumed_from_step"] == 2
    assert g.last_report["checkpoints_written"] == 0
