"""networkx's own tests of the functions swapless answers, run in networkx's backend
test mode with swapless as the backend (``NETWORKX_TEST_BACKEND=swapless``).

With fallback (``NETWORKX_FALLBACK_TO_NX``), calls swapless declines (see
``swapless.nx_backend.can_run``) and functions it does not implement run in networkx:
every test passes, swapless ran each function in some of them, and of the calls the tests
make themselves it runs at least as many, and declines no more, than
``nx_backend_expected.json`` records for each function (``SWAPLESS_RECORD_NX_COUNTS=1``
records this run's counts there). Without fallback, as nx-cugraph is measured, a declined
call, or a call of a function swapless lacks (networkx's generators and helpers among
them), ends its test as an expected failure, so that no wrong answer hides behind
networkx's: no test fails.
"""

import collections
import json
import os
import pathlib
import re
import subprocess
import sys

import networkx as nx
import numpy as np
import pytest

import swapless as sl
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
    "algorithms/centrality/tests/test_eigenvector_centrality.py",
    "algorithms/centrality/tests/test_katz_centrality.py",
    "algorithms/link_analysis/tests/test_hits.py",
    "algorithms/assortativity/tests/test_neighbor_degree.py",
    "algorithms/community/tests/test_label_propagation.py",
    "algorithms/community/tests/test_louvain.py",
    "algorithms/tests/test_link_prediction.py",
]


def test_the_backend_is_found_by_its_entry_point():
    G = nx.path_graph(5)
    assert nx.single_source_shortest_path_length(G, 0, backend="swapless") == {v: v for v in G}
    assert "swapless" in nx.utils.backends.backends


def _outcome(call):
    """What ``call()`` answered, comparable: its value (iterators listed, graphs as their
    nodes and edges) or the class of what it raised."""
    try:
        result = call()
    except Exception as error:
        return type(error)
    if isinstance(result, nx.Graph):
        return sorted(result.nodes), sorted(result.edges)
    if not isinstance(result, (dict, tuple, list, set, str)) and hasattr(result, "__iter__"):
        result = list(result)
    return result


@pytest.mark.parametrize("name", sorted(swapless.nx_backend._graph.FUNCTIONS))
def test_the_null_graph_is_answered_as_networkx_answers_it(name):
    function = getattr(nx, name, None) or getattr(nx.community, name)
    for G in (nx.Graph(), nx.DiGraph()):
        expected = _outcome(lambda: function(G))
        if expected is TypeError:
            continue  # the function needs more than a graph (a source)
        if name == "maximal_independent_set" and expected is IndexError:
            # networkx's random.choice of a first node fails on no nodes; swapless answers
            # with the empty set.
            expected = []
        found = _outcome(lambda: function(G, backend="swapless"))
        if found is NotImplementedError:
            continue  # declined for another reason (directed clustering): counted elsewhere
        assert found == expected, (name, type(G).__name__)


def _graphs_with_self_loops():
    """Graphs with self-loops, undirected and directed: a connected one, and the same
    with a node whose only edge is a self-loop (so that it is no isolate)."""
    for directed in (False, True):
        G = nx.gnp_random_graph(30, 0.15, seed=7, directed=directed)
        G.add_edges_from(zip(range(G.number_of_nodes() - 1), range(1, G.number_of_nodes())))
        G.add_edges_from((v, v) for v in (0, 3, 4, 11, 29))
        yield G
        H = G.copy()
        H.add_edge("alone", "alone")
        yield H


# Arguments beyond the graph, for the functions that need them.
_ARGUMENTS = {
    "ancestors": (3,), "descendants": (3,), "descendants_at_distance": (3, 2),
    "has_path": (3, 20), "node_connected_component": (3,), "is_isolate": (4,),
    "shortest_path_length": (3,), "single_source_shortest_path_length": (3,),
    "single_target_shortest_path_length": (3,), "k_truss": (3,),
}


def _close(found, expected):
    """Whether two outcomes agree, floats to 1e-6 relative (float32 PageRank)."""
    if isinstance(expected, dict):
        return (isinstance(found, dict) and found.keys() == expected.keys()
                and all(_close(found[k], expected[k]) for k in expected))
    if isinstance(expected, (tuple, list)) and expected and isinstance(expected[0], set):
        return sorted(map(frozenset, found), key=str) == sorted(map(frozenset, expected), key=str)
    if isinstance(expected, (tuple, list)):
        return (isinstance(found, (tuple, list)) and len(found) == len(expected)
                and all(_close(a, b) for a, b in zip(found, expected)))
    if isinstance(expected, float) and isinstance(found, float):
        return abs(found - expected) <= 1e-6 * max(abs(expected), 1e-9)
    return found == expected


@pytest.mark.parametrize("name", sorted(swapless.nx_backend._graph.FUNCTIONS))
def test_graphs_with_self_loops_are_answered_as_networkx_answers_them(name):
    """swapless keeps self-loops as networkx holds them: each function answers as networkx
    does (counting them or leaving them out as networkx's function does), or declines; a
    function whose entry answers self-loops answers at least one of these graphs."""
    function = getattr(nx, name, None) or getattr(nx.community, name)
    entry = swapless.nx_backend._graph.FUNCTIONS[name]
    arguments = _ARGUMENTS.get(name, ())
    answered = 0
    for G in _graphs_with_self_loops():
        expected = _outcome(lambda: function(G, *arguments))
        found = _outcome(lambda: function(G, *arguments, backend="swapless"))
        if name == "all_pairs_shortest_path_length" and isinstance(expected, list):
            expected, found = dict(expected), dict(found)
        if found is NotImplementedError:
            continue  # declined (for the self-loops or for another reason)
        answered += 1
        if name == "maximal_independent_set" and not isinstance(found, type):
            # networkx's is random: swapless's must be independent and maximal, a node's
            # self-loop aside, as networkx's ignores it too.
            chosen = set(found)
            for u, v in G.edges:
                assert u == v or not (u in chosen and v in chosen), (u, v)
            assert all(v in chosen or set(G[v]) & chosen for v in G if set(G[v]) - {v})
            continue
        if name == "louvain_communities" and not isinstance(found, type):
            # networkx's visits the nodes at random: the quality is what compares.
            quality = nx.community.modularity
            assert quality(G, found) >= quality(G, expected) - 0.05, (G.is_directed(), found)
            continue
        assert _close(found, expected), (name, G.is_directed(), found, expected)
    assert answered or not entry.loops_answered, name


@pytest.mark.parametrize("call", [
    lambda G, **kw: nx.pagerank(G, personalization={0: 1}, **kw),
    lambda G, **kw: nx.pagerank(G, max_iter=0, **kw),
    lambda G, **kw: nx.pagerank(G, tol=-1, alpha=2, **kw),
    lambda G, **kw: nx.katz_centrality(G, max_iter=0, **kw),
    lambda G, **kw: nx.hits(G, tol=-1, **kw),
])
def test_the_null_graph_is_answered_before_the_arguments_are_read(call):
    # networkx returns an empty answer before it looks at the arguments.
    for G in (nx.Graph(), nx.DiGraph()):
        assert _outcome(lambda: call(G, backend="swapless")) == _outcome(lambda: call(G))


def test_arguments_networkx_takes_and_swapless_would_not_are_declined():
    G = nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 1)])
    for weight in (0.1, 1e-50):
        G[0][1]["weight"] = weight  # float32 cannot hold it
        with pytest.raises(NotImplementedError):
            nx.pagerank(G, backend="swapless")
    del G[0][1]["weight"]
    for options in ({"alpha": 1.5}, {"alpha": -0.5}, {"tol": -1}):
        with pytest.raises(NotImplementedError):
            nx.pagerank(G, backend="swapless", **options)
    # Out-weights of mixed signs: only a sum of 0 dangles, as networkx reads them.
    G[1][2]["weight"] = -0.5
    G[0][1]["weight"] = 2
    expected = nx.pagerank(G)
    found = nx.pagerank(G, backend="swapless")
    assert max(abs(found[v] - expected[v]) for v in G) < 1e-15


def test_betweenness_by_weight_is_networkx_s_and_declines_what_would_differ():
    rng = np.random.default_rng(3)
    for directed in (False, True):
        G = nx.gnm_random_graph(60, 200, seed=5, directed=directed)
        # Few distinct weights, so that many shortest paths tie.
        for u, v in G.edges:
            G[u][v]["w"] = float(rng.choice([0.25, 0.5, 1.0, 1.5]))
        for options in ({}, {"normalized": False}, {"endpoints": True},
                        {"k": 10, "seed": 4}, {"k": 10, "seed": 4, "endpoints": True}):
            expected = nx.betweenness_centrality(G, weight="w", **options)
            found = nx.betweenness_centrality(G, weight="w", backend="swapless", **options)
            assert max(abs(found[v] - expected[v]) for v in G) < 1e-12, (directed, options)
        # The lightest path is not the one of fewest hops: weights change the answer.
        assert expected != nx.betweenness_centrality(G, **options)
        for weight, value in (("zero", 0), ("tenth", 0.1)):
            nx.set_edge_attributes(G, 1.0, weight)
            G[0][next(iter(G[0]))][weight] = value
            G.__networkx_cache__.clear()
            with pytest.raises(NotImplementedError):
                nx.betweenness_centrality(G, weight=weight, backend="swapless")
    # A multigraph's shortest paths take the lightest of each parallel set.
    M = nx.MultiGraph([(0, 1, {"w": 2}), (0, 1, {"w": 1}), (1, 2, {"w": 1}), (0, 2, {"w": 2}),
                       (0, 2, {"w": 5}), (2, 3, {"w": 1})])
    for options in ({}, {"normalized": False}, {"endpoints": True}):
        expected = nx.betweenness_centrality(M, weight="w", **options)
        assert nx.betweenness_centrality(M, weight="w", backend="swapless", **options) == \
            pytest.approx(expected, abs=1e-15)


def test_clustering_by_weight_is_networkx_s_directed_and_not_with_self_loops():
    rng = np.random.default_rng(8)
    for directed in (False, True):
        G = nx.gnm_random_graph(50, 300, seed=2, directed=directed)
        G.add_edge(3, 3)
        for u, v in G.edges:
            G[u][v]["w"] = float(rng.choice([0.5, 1.0, 2.0, 7.25, -3.0]))
        G[3][3]["w"] = 40.0  # the largest weight is a self-loop's, as networkx reads it
        for weight in ("w", "missing"):
            expected = nx.clustering(G, weight=weight)
            found = nx.clustering(G, weight=weight, backend="swapless")
            assert max(abs(found[v] - expected[v]) for v in G) < 1e-12, (directed, weight)
            assert nx.average_clustering(G, weight=weight, backend="swapless") == pytest.approx(
                nx.average_clustering(G, weight=weight), rel=1e-12, abs=1e-15)
        assert nx.clustering(G, weight="w") != nx.clustering(G)
        nx.set_edge_attributes(G, 0, "zero")
        nx.set_edge_attributes(G, 0.1, "tenth")
        G.__networkx_cache__.clear()
        for weight in ("zero", "tenth"):
            with pytest.raises(NotImplementedError):
                nx.clustering(G, weight=weight, backend="swapless")


def test_k_truss_is_networkx_s_subgraph_with_its_data():
    graphs = [nx.karate_club_graph(), nx.relabel_nodes(nx.les_miserables_graph(), str)]
    for seed in range(3):
        G = nx.gnm_random_graph(50, 500, seed=seed)
        G.add_node("isolated", colour="red")
        nx.set_edge_attributes(G, {e: {"label": str(e)} for e in G.edges})
        graphs.append(G)
    for G in graphs:
        G.graph["title"] = "kept"
        for k in (-1, 0, 2, 3, 4, 5, 8, 40):
            expected = nx.k_truss(G, k)
            found = nx.k_truss(G, k, backend="swapless")
            assert list(found.nodes(data=True)) == list(expected.nodes(data=True)), k
            edges = lambda H: {frozenset((u, v)): d for u, v, d in H.edges(data=True)}
            assert edges(found) == edges(expected), k
            order = lambda H: [(u, list(neighbors)) for u, neighbors in H.adj.items()]
            assert order(found) == order(expected), k
            assert found.graph == expected.graph
    G = graphs[0]
    # networkx compares counts with k - 2 whatever k is; swapless takes whole numbers.
    with pytest.raises(NotImplementedError):
        nx.k_truss(G, 3.5, backend="swapless")
    G.add_edge(0, 0)
    for backend in (None, "swapless"):
        with pytest.raises(nx.NetworkXNotImplemented, match="self loops"):
            nx.k_truss(G, 3, backend=backend)
        with pytest.raises(nx.NetworkXNotImplemented, match="directed"):
            nx.k_truss(nx.DiGraph(G), 3, backend=backend)


def test_jaccard_coefficients_are_networkx_s_on_converted_and_file_graphs(tmp_path):
    G = nx.gnm_random_graph(80, 300, seed=6)
    G.add_edges_from([(3, 3), (7, 7)])
    pairs = [(0, 1), (3, 5), (3, 3), (7, 9), (79, 0)] + list(G.edges)[:50]
    for ebunch in (None, pairs):
        expected = list(nx.jaccard_coefficient(G, ebunch))
        assert list(nx.jaccard_coefficient(G, ebunch, backend="swapless")) == expected
    # networkx reads an iterator of pairs through to check it, and then answers nothing.
    assert list(nx.jaccard_coefficient(G, iter(pairs), backend="swapless")) == []
    with pytest.raises(nx.NodeNotFound):
        nx.jaccard_coefficient(G, [(0, 1000)], backend="swapless")
    F = sl.networkx_graph(sl.from_networkx(G, path=tmp_path / "g.sl"))
    assert list(nx.jaccard_coefficient(F, pairs)) == list(nx.jaccard_coefficient(G, pairs))
    with pytest.raises(NotImplementedError):
        list(nx.jaccard_coefficient(F))


def test_what_networkx_would_refuse_or_answer_otherwise_is_not_answered_quietly(tmp_path):
    G = nx.complete_graph(5)
    # A misspelled keyword: networkx raises TypeError, and so does the backend.
    with pytest.raises(TypeError, match="wieght"):
        nx.betweenness_centrality(G, wieght="w", backend="swapless")
    with pytest.raises(TypeError, match="personalisation"):
        nx.pagerank(G, personalisation={0: 1}, backend="swapless")
    # An infinite weight is declined, so that networkx can answer it.
    nx.set_edge_attributes(G, float("inf"), "w")
    for call in (nx.betweenness_centrality, nx.clustering, nx.pagerank):
        with pytest.raises(NotImplementedError):
            call(G, weight="w", backend="swapless")
    # Weights all 0: networkx divides by zero, on a converted graph and on a file.
    nx.set_edge_attributes(G, 0, "zero")
    G.__networkx_cache__.clear()
    with pytest.raises(NotImplementedError):
        nx.clustering(G, weight="zero", backend="swapless")
    Z = nx.Graph()
    Z.add_edges_from([(0, 1, {"weight": 0.0}), (1, 2, {"weight": 0.0}), (0, 2, {"weight": 0.0})])
    F = sl.networkx_graph(sl.from_networkx(Z, weight="weight", path=tmp_path / "z.sl"))
    with pytest.raises(ZeroDivisionError):
        nx.clustering(F, weight="weight")


def test_the_backend_imported_before_networkx_keeps_its_settings():
    # Importing the backend imports networkx, which reads the backend's settings while
    # the backend is still half imported.
    code = ("import swapless.nx_backend; import networkx as nx; "
            "nx.config.backends.swapless.memory = '64M'; "
            "assert len(swapless.nx_backend.backend_info()['functions']) >= 45")
    subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", code], check=True)


EXPECTED = pathlib.Path(__file__).with_name("nx_backend_expected.json")


def networkx_tests(tmp_path, fallback):
    """networkx's test modules with swapless as the backend: the finished process."""
    environment = dict(os.environ, NETWORKX_TEST_BACKEND="swapless",
                       PYTHONPATH=str(pathlib.Path(__file__).parent))
    # networkx reads any value, "False" too, as asking for fallback.
    environment.pop("NETWORKX_FALLBACK_TO_NX", None)
    if fallback:
        environment["NETWORKX_FALLBACK_TO_NX"] = "True"
    return subprocess.run(
        # networkx's conftest is loaded as a plugin, and only so: where pytest would also
        # find it by path (inside a virtual environment), it would be registered twice.
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--noconftest",
         "-p", "networkx.conftest",
         "-p", "nx_backend_counts", "-W", "ignore", *[str(NX / module) for module in MODULES]],
        env=environment, cwd=tmp_path, capture_output=True, text=True, timeout=600)


def counts_of(output):
    """Per function, the calls swapless ran and those it declined, by reason."""
    counts = collections.defaultdict(lambda: {"ran": 0, "declined": {}})
    for name, outcome, count in re.findall(r"^swapless (\w+): (.+): (\d+)$", output, re.M):
        if outcome == "ran":
            counts[name]["ran"] += int(count)
        else:
            counts[name]["declined"][outcome.removeprefix("declined: ")] = int(count)
    return counts


def test_networkx_own_tests_pass_with_swapless_as_backend(tmp_path):
    done = networkx_tests(tmp_path, fallback=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    for function in swapless.nx_backend.backend_info()["functions"]:
        assert f"swapless {function}: ran:" in done.stdout, (function, done.stdout[-3000:])
    counts = counts_of(done.stdout)
    if os.environ.get("SWAPLESS_RECORD_NX_COUNTS"):
        EXPECTED.write_text(json.dumps({"networkx": nx.__version__, "functions": counts},
                                       indent=1, sort_keys=True) + "\n")
    expected = json.loads(EXPECTED.read_text())
    if expected["networkx"] != nx.__version__:
        pytest.skip(f"the counts were recorded with networkx {expected['networkx']}, "
                    f"not {nx.__version__}")
    for function, recorded in expected["functions"].items():
        assert counts[function]["ran"] >= recorded["ran"], (function, counts[function], recorded)
        assert sum(counts[function]["declined"].values()) <= sum(recorded["declined"].values()), (
            function, counts[function], recorded)


def test_without_fallback_no_test_fails(tmp_path):
    done = networkx_tests(tmp_path, fallback=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " failed" not in done.stdout.strip().splitlines()[-1], done.stdout[-2000:]
