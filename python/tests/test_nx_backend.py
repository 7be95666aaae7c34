"""networkx's own tests of the functions swapless answers, run in networkx's backend
test mode with swapless as the backend (``NETWORKX_TEST_BACKEND=swapless``): every test
passes, and swapless ran each function in some of them. Calls it declines (see
``swapless.nx_backend.can_run``) and functions it does not implement run in networkx
(``NETWORKX_FALLBACK_TO_NX``)."""

import os
import pathlib
import subprocess
import sys

import networkx as nx

import swapless.nx_backend

NX = pathlib.Path(nx.__file__).parent
MODULES = [
    "algorithms/link_analysis/tests/test_pagerank.py",
    "algorithms/components/tests/test_connected.py",
    "algorithms/components/tests/test_weakly_connected.py",
    "algorithms/components/tests/test_strongly_connected.py",
    "algorithms/tests/test_core.py",
    "algorithms/shortest_paths/tests/test_unweighted.py",
    "algorithms/centrality/tests/test_betweenness_centrality.py",
    "algorithms/tests/test_mis.py",
    "algorithms/tests/test_cluster.py",
    "algorithms/centrality/tests/test_degree_centrality.py",
    "algorithms/tests/test_dag.py",
    "algorithms/shortest_paths/tests/test_generic.py",
    "algorithms/components/tests/test_attracting.py",
    "algorithms/tests/test_isolate.py",
    "algorithms/traversal/tests/test_bfs.py",
    "algorithms/centrality/tests/test_closeness_centrality.py",
    "algorithms/centrality/tests/test_harmonic_centrality.py",
    "algorithms/tests/test_distance_measures.py",
]


def test_the_backend_is_found_by_its_entry_point():
    G = nx.path_graph(5)
    assert nx.single_source_shortest_path_length(G, 0, backend="swapless") == {v: v for v in G}
    assert "swapless" in nx.utils.backends.backends


def test_networkx_own_tests_pass_with_swapless_as_backend(tmp_path):
    environment = dict(os.environ, NETWORKX_TEST_BACKEND="swapless", NETWORKX_FALLBACK_TO_NX="True",
                       PYTHONPATH=str(pathlib.Path(__file__).parent))
    done = subprocess.run(
        # networkx's conftest is loaded as a plugin, and only so: where pytest would also
        # find it by path (inside a virtual environment), it would be registered twice.
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--noconftest",
         "-p", "networkx.conftest",
         "-p", "nx_backend_counts", "-W", "ignore", *[str(NX / module) for module in MODULES]],
        env=environment, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    for function in swapless.nx_backend.backend_info()["functions"]:
        assert f"swapless {function}: ran:" in done.stdout, (function, done.stdout[-3000:])
