"""The Python package: every kernel against networkx and scipy through every tier,
from_edges/from_scipy round trips, errors as the right classes, Ctrl-C, python -m."""

import os
import signal
import subprocess
import sys
import time
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.csgraph

import swapless as sl
from slfile import SlGraph, networkx_graph, real_edge_lists

# A budget small enough that the disk tiers read most lists from the file (6 MiB for the
# run and 12 for the process itself).
SMALL = "18M"
TIERS = [("dram", None), ("mmap", SMALL), ("direct", SMALL)]


def as_networkx(g):
    """The graph as networkx sees it, from the .sl file's own arcs (independent of the kernels)."""
    return networkx_graph(g.path)


class Reference:
    """networkx's answers for one graph, computed once for every tier's run."""

    def __init__(self, g):
        self.g = g
        nxg = as_networkx(g)
        self.nx = nxg
        self.undirected = nxg.to_undirected() if nxg.is_directed() else nxg
        # Python's builds keep self-loops; networkx's core numbers refuse them.
        self.without_loops = nxg.copy()
        self.without_loops.remove_edges_from(list(nx.selfloop_edges(nxg)))
        pagerank = nx.pagerank(nxg, alpha=0.85, tol=1e-13, max_iter=1000, weight=None)
        self.pagerank = np.array([pagerank[v] for v in range(g.n)])
        self.source = next(v for v in nxg.nodes if nxg.degree(v) > 0)
        self.depth = nx.single_source_shortest_path_length(nxg, self.source)
        distances = nx.single_source_dijkstra_path_length(nxg, self.source, weight="weight")
        self.distances = np.array([distances.get(v, np.inf) for v in range(g.n)])
        self.parts = list(nx.weakly_connected_components(nxg) if nxg.is_directed()
                          else nx.connected_components(nxg))
        self.triangles = sum(nx.triangles(self.undirected).values()) // 3


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("api")
    made = []
    for source, undirected in real_edge_lists():
        name = source.name.removesuffix(".el.gz")
        made.append(sl.build(source, folder / f"{name}.sl", undirected=undirected))
    made.append(sl.generate("kron", scale=10, degree=8, weighted=True, reorder="dbg",
                            output=folder / "kron10.sl"))
    rng = np.random.default_rng(11)
    src, dst = rng.integers(0, 400, size=(2, 3000))
    made.append(sl.from_edges(src, dst, weights=rng.integers(1, 9, 3000), directed=True,
                              path=folder / "directed.sl"))
    return [Reference(g) for g in made]


def on_tier(g, tier, memory):
    return sl.open(g.path, memory=memory, tier=tier)


@pytest.mark.parametrize("tier,memory", TIERS)
# tol=1e-12 is below what f32 scores reach, so the runs stop at max_iter, as warned.
@pytest.mark.filterwarnings("ignore:pr stopped")
def test_pagerank_bfs_and_sssp_match_networkx_on_every_tier(graphs, tier, memory):
    for reference in graphs:
        graph = on_tier(reference.g, tier, memory)
        scores = sl.pagerank(graph, tol=1e-12, max_iter=1000)
        assert graph.last_report["tier"] == tier
        assert np.abs(scores - reference.pagerank).max() < 1e-8
        parents = sl.bfs(graph, reference.source)
        depth = reference.depth
        assert {v for v in range(graph.n) if parents[v] >= 0} == set(depth)
        for v, d in depth.items():
            if v != reference.source:
                assert depth[int(parents[v])] == d - 1
        distances = sl.sssp(graph, reference.source, delta=3.0)
        assert np.allclose(distances, reference.distances, rtol=1e-9)


@pytest.mark.parametrize("tier,memory", TIERS)
def test_components_triangles_mis_radii_and_betweenness_on_every_tier(graphs, tier, memory):
    for reference in graphs:
        graph = on_tier(reference.g, tier, memory)
        labels = sl.connected_components(graph)
        assert len(set(labels.tolist())) == len(reference.parts)
        assert all(len({int(labels[v]) for v in part}) == 1 for part in reference.parts)
        assert sl.triangle_count(graph) == reference.triangles
        members = sl.maximal_independent_set(graph)
        assert members.dtype == np.int8
        chosen = set(np.flatnonzero(members).tolist())
        # A self-loop joins a vertex to nothing else, for swapless's sets as networkx's.
        assert not any(u != v and u in chosen and v in chosen
                       for u, v in reference.undirected.edges)
        assert nx.is_dominating_set(reference.undirected, chosen)
        cores = nx.core_number(reference.without_loops)
        assert sl.core_number(graph).tolist() == [cores[v] for v in range(graph.n)]
        estimates = sl.radii(graph)
        assert estimates.dtype == np.int64 and len(estimates) == graph.n
        lengths = [nx.single_source_shortest_path_length(reference.nx, s)
                   for s in graph.last_report["result"]["source_ids"][:4]]
        for v in range(0, graph.n, 97):
            reached = [d[v] for d in lengths if v in d]
            assert estimates[v] >= (max(reached) if reached else -1)
        scores = sl.betweenness(graph, sources=2, verify=True)
        assert scores.max() == pytest.approx(1.0) or scores.max() == 0.0


def test_results_do_not_depend_on_the_tier(graphs):
    g = graphs[-2].g
    results = {}
    for tier, memory in TIERS:
        graph = on_tier(g, tier, memory)
        results[tier] = (sl.pagerank(graph), sl.bfs(graph, 3), sl.connected_components(graph))
    for tier in ("mmap", "direct"):
        assert np.allclose(results[tier][0], results["dram"][0], rtol=0, atol=1e-12)
        assert np.array_equal(results[tier][1], results["dram"][1])
        assert np.array_equal(results[tier][2], results["dram"][2])


def test_exact_betweenness_matches_networkx(tmp_path):
    g = sl.generate("kron", scale=8, degree=4, output=tmp_path / "k8.sl")
    scores = sl.betweenness(g, sources="all")
    expected = nx.betweenness_centrality(as_networkx(g), normalized=False)
    reference = np.array([expected[v] for v in range(g.n)])
    assert np.abs(scores - reference / reference.max()).max() < 1e-9


def test_from_edges_and_from_scipy_round_trip(tmp_path):
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 200, size=(2, 1500))
    weights = rng.integers(1, 50, 1500).astype(float)
    g = sl.from_edges(src, dst, weights=weights, directed=True, num_vertices=250)
    assert g.n == 250 and g.directed and g.weighted
    stored = SlGraph(g.path)
    kept = {}
    for u, v, w in zip(src.tolist(), dst.tolist(), weights.tolist()):
        kept[(u, v)] = min(w, kept.get((u, v), np.inf))
    s, d, w = stored.edges()
    assert dict(zip(zip(s.tolist(), d.tolist()), w.tolist())) == kept
    assert g.m == len(kept)
    loops = sum(u == v for u, v in kept)
    assert loops > 0 and g.info()["self_loops"] == loops
    dropped = sl.from_edges(src, dst, weights=weights, num_vertices=250, self_loops="drop")
    assert dropped.m == len(kept) - loops and dropped.info()["self_loops"] == 0
    assert dropped.build_report["self_loops_dropped"] == int((src == dst).sum())
    with pytest.raises(ValueError, match="self_loops"):
        sl.from_edges(src, dst, self_loops="no")

    matrix = scipy.sparse.csr_matrix((weights, (src, dst)), shape=(250, 250))
    matrix.sum_duplicates()
    from_matrix = sl.from_scipy(matrix, path=tmp_path / "m.sl")
    assert from_matrix.n == 250 and from_matrix.weighted
    distances = sl.sssp(from_matrix, int(src[0]))
    # scipy sums duplicate entries while swapless keeps the smallest: compare with scipy on
    # the same (summed) matrix, which from_scipy stored.
    no_loops = matrix.copy()
    no_loops.setdiag(0)
    no_loops.eliminate_zeros()
    reference = scipy.sparse.csgraph.dijkstra(no_loops, indices=int(src[0]))
    assert np.allclose(distances, reference)
    unweighted = sl.from_scipy(scipy.sparse.csr_matrix(np.ones((3, 3)) - np.eye(3)), directed=False)
    assert not unweighted.weighted and unweighted.m == 3
    assert sl.triangle_count(unweighted) == 1


def test_degrees_count_each_vertex_s_neighbors_in_result_order_reordered_or_not(tmp_path):
    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, 300, size=(2, 4000))
    g = sl.from_edges(src, dst, directed=True, num_vertices=320, path=tmp_path / "d.sl")
    arcs = set(zip(src.tolist(), dst.tolist()))  # self-loops kept, once each
    expected_out = np.bincount([u for u, _ in arcs], minlength=320)
    expected_in = np.bincount([v for _, v in arcs], minlength=320)
    reordered = sl.build(g.path, tmp_path / "r.sl", reorder="dbg")
    assert reordered.info()["reordered"]
    for graph in (g, reordered):
        assert np.array_equal(graph.degrees(), expected_out)
        assert np.array_equal(graph.degrees("in"), expected_in)
    undirected = sl.from_edges(src, dst, directed=False, num_vertices=320)
    assert np.array_equal(undirected.degrees("in"), undirected.degrees("out"))
    # An undirected edge is in two lists, a self-loop in one.
    assert undirected.degrees().sum() == 2 * undirected.m - undirected.info()["self_loops"]
    with pytest.raises(ValueError, match="direction"):
        g.degrees("both")


def test_closeness_and_betweenness_from_chosen_sources_speak_the_graph_s_labels():
    G = nx.Graph([("a", "b"), ("b", "c"), ("c", "d"), ("x", "y")])
    g = sl.from_networkx(G)
    expected = nx.closeness_centrality(G)
    assert dict(zip(g.ids.tolist(), sl.closeness(g).tolist())) == expected
    assert not g.last_report["result"]["strongly_connected"]
    harmonic = dict(zip(g.ids.tolist(), sl.closeness(g, measure="harmonic").tolist()))
    assert harmonic == pytest.approx(nx.harmonic_centrality(G))
    scores = sl.betweenness(g, sources=["b", "c", "b"])
    report = g.last_report["result"]
    assert report["sources"] == 2 and report["source_ids"] == ["b", "c"]
    # Dependencies from b and c alone: b lies on c's paths to a, c on b's to d.
    sums = dict(zip(g.ids.tolist(), (scores * report["largest_dependency"]).tolist()))
    assert sums == {"a": 0, "b": 1, "c": 1, "d": 0, "x": 0, "y": 0}
    sl.bfs(g, source="c")
    assert g.last_report["source"] == "c"
    with pytest.raises(KeyError, match="zz"):
        sl.betweenness(g, sources=["zz"])
    with pytest.raises(ValueError, match="at least one"):
        sl.betweenness(g, sources=[])
    with pytest.raises(ValueError, match="measure must be one of"):
        sl.closeness(g, measure="farness")


def test_errors_arrive_as_specific_exceptions(tmp_path):
    with pytest.raises(OSError):
        sl.open(tmp_path / "missing.sl")
    garbage = tmp_path / "garbage.sl"
    garbage.write_bytes(b"not a graph" * 100)
    with pytest.raises(sl.FormatError):
        sl.open(garbage)
    g = sl.generate("kron", scale=12, output=tmp_path / "k12.sl")
    with pytest.raises(sl.BudgetError, match="at least"):
        sl.pagerank(sl.open(g.path, memory="64K", tier="direct"))
    with pytest.raises(ValueError):
        sl.open(g.path, tier="swap")
    with pytest.raises(ValueError):
        sl.bfs(g, source=-1)
    with pytest.raises(ValueError, match="not a vertex"):
        sl.bfs(g, source=g.n)
    with pytest.raises(ValueError):
        sl.pagerank(g, alpha=2.0)
    with pytest.raises(ValueError):
        sl.from_edges([0, 1], [1])
    with pytest.raises(ValueError):
        sl.from_edges([0, -1], [1, 0])
    with pytest.raises(ValueError, match="undirected graphs only"):
        sl.label_propagation(sl.from_edges([0, 1], [1, 2], directed=True))
    with pytest.raises(ValueError, match="scores must be"):
        sl.hits(g, scores="both")
    with pytest.raises(ValueError, match="a checkpoint holds one run"):
        sl.hits(g, checkpoint=tmp_path / "hits")
    with pytest.warns(RuntimeWarning, match="diverges"):
        sl.katz_centrality(g, alpha=1.0)
    assert g.last_report["result"]["converged"] is False
    bad_input = tmp_path / "bad.el"
    bad_input.write_text("0 1\n1 2 3 4\n")
    with pytest.raises(sl.FormatError, match="bad.el:2"):
        sl.build(bad_input, tmp_path / "bad.sl")
    assert not (tmp_path / "bad.sl").exists()
    # A budget too small is found once the input is read through (its ids may need
    # compacting), so a good input shows it.
    good_input = tmp_path / "good.el"
    good_input.write_text("0 1\n1 2\n")
    with pytest.raises(sl.BudgetError):
        sl.build(good_input, tmp_path / "good.sl", memory="1M")


def test_a_corrupt_page_raises_instead_of_changing_the_answer(tmp_path):
    # 7 MiB of lists: at the small budget the disk tiers read the damaged page.
    g = sl.generate("kron", scale=16, degree=16, output=tmp_path / "k16.sl")
    offset, length = SlGraph(g.path).sections["out_neighbors"]
    data = bytearray((tmp_path / "k16.sl").read_bytes())
    # The lowest bit of an id near the end: still a vertex, so only a checksum sees it.
    data[offset + length - 8] ^= 1
    damaged = tmp_path / "damaged.sl"
    damaged.write_bytes(bytes(data))
    for tier, memory in TIERS:
        with pytest.raises(sl.FormatError, match="fails its checksum"):
            sl.pagerank(sl.open(damaged, memory=memory, tier=tier))


def test_report_plan_and_info(tmp_path):
    g = sl.generate("urand", scale=10, output=tmp_path / "u.sl")
    ranks = sl.pagerank(g, threads=2)
    report = g.last_report
    for key in ("kernel", "tier", "seconds", "load_seconds", "peak_rss_bytes", "footprint_bytes",
                "bytes_read", "major_faults", "result"):
        assert key in report
    assert report["kernel"] == "pr" and report["threads"] == 2 and ranks.sum() == pytest.approx(1.0)
    plan = sl.open(g.path, memory="16M", tier="direct").plan("bfs")
    assert plan["tier"] == "direct" and plan["segments"]
    # A tier asked for by name is never passed over, so nothing was refused here.
    assert plan["io_uring_refused"] is None
    names = lambda plan: [segment["name"] for segment in plan["segments"]]
    assert "verification" not in names(plan)
    verified = sl.open(g.path, memory="16M", tier="direct").plan("bfs", verify=True)
    assert "verification" in names(verified)
    assert verified["minimum_bytes"] >= plan["minimum_bytes"]
    assert g.info()["vertices"] == 1024
    g.check()


def test_a_swapless_file_builds_again(tmp_path):
    g = sl.generate("kron", scale=10, output=tmp_path / "k.sl", reorder="dbg")
    back = sl.build(g.path, tmp_path / "back.sl")
    plain = sl.generate("kron", scale=10, output=tmp_path / "plain.sl")
    assert (tmp_path / "back.sl").read_bytes() == (tmp_path / "plain.sl").read_bytes()
    assert back.n == plain.n and back.m == plain.m


def test_out_heads_is_written_as_asked_and_cc_agrees_with_or_without_it(tmp_path):
    def sections(g):
        return {section["name"]: section["bytes"] for section in g.info()["sections"]}

    dense = sl.generate("kron", scale=14, degree=8, output=tmp_path / "auto.sl")
    never = sl.generate("kron", scale=14, degree=8, output=tmp_path / "never.sl",
                        out_heads="never")
    assert "out_heads" in sections(dense) and "out_heads" not in sections(never)
    # A file built before gets its heads by building it again.
    rebuilt = sl.build(never.path, tmp_path / "rebuilt.sl", out_heads="always")
    assert sections(rebuilt) == sections(dense)
    rebuilt.check()
    least = sl.open(dense.path, tier="direct").plan("cc")["minimum_bytes"]
    labels, bytes_read = [], []
    for g in (dense, never):
        on_disk = sl.open(g.path, memory=least + (64 << 10), tier="direct")
        labels.append(sl.connected_components(on_disk))
        bytes_read.append(on_disk.last_report["bytes_read"])
    assert np.array_equal(labels[0], labels[1])
    assert bytes_read[0] <= sections(dense)["out_heads"] < bytes_read[1]
    with pytest.raises(ValueError, match="out_heads"):
        sl.generate("kron", scale=8, output=tmp_path / "bad.sl", out_heads="sometimes")


# A shell ignores SIGINT in the commands it starts in the background, and Python then
# installs no Ctrl-C handler; these tests send Ctrl-C, so the child restores it.
RESTORE_CTRL_C = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"


def interrupted(script, after):
    """Runs ``script`` in a new Python, sends it Ctrl-C ``after`` seconds past its
    "started" line, asserts it exits with 42 (its own sign of a KeyboardInterrupt caught)
    and returns the seconds from the interrupt to the exit."""
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().strip() == "started"
        time.sleep(after)
        sent = time.time()
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 42
        return time.time() - sent
    finally:
        process.kill()
        process.wait()


def test_ctrl_c_interrupts_a_long_build_and_leaves_no_file(tmp_path):
    output = tmp_path / "big.sl"
    script = (
        "import swapless as sl, sys\n"
        + RESTORE_CTRL_C
        + "print('started', flush=True)\n"
        "try:\n"
        f"    sl.generate('kron', scale=21, output={str(output)!r}, memory='256M')\n"
        "except KeyboardInterrupt:\n"
        "    sys.exit(42)\n"
    )
    interrupted(script, after=1.0)
    assert not output.exists()
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_stops_a_long_kernel_run_promptly(tmp_path):
    graph = sl.generate("kron", scale=16, output=tmp_path / "k16.sl")
    script = (
        "import swapless as sl, sys, time\n"
        + RESTORE_CTRL_C
        + f"g = sl.open({graph.path!r}, memory='20M', tier='direct')\n"
        "print('started', flush=True)\n"
        "try:\n"
        "    sl.pagerank(g, tol=0.0, max_iter=100000)\n"
        "except KeyboardInterrupt:\n"
        "    started = time.time()\n"
        "    sl.bfs(g, 0)\n"
        "    sys.exit(42)\n"
    )
    # The run stops at its next scan (a few milliseconds here), and the process can run again.
    assert interrupted(script, after=1.5) < 30


def test_ctrl_c_stops_a_networkx_call_through_the_backend_promptly():
    # networkx's call reaches the same run as sl.pagerank's, and so its Ctrl-C.
    script = (
        "import networkx as nx, sys, time\n"
        + RESTORE_CTRL_C
        + "G = nx.gnm_random_graph(20_000, 100_000, seed=3, directed=True)\n"
        "nx.config.backends.swapless.memory = '64M'\n"
        "nx.config.warnings_to_ignore.add('cache')\n"
        "assert nx.pagerank(G, backend='swapless', max_iter=1000)\n"
        "print('started', flush=True)\n"
        "try:\n"
        "    nx.pagerank(G, backend='swapless', tol=0.0, max_iter=10_000_000)\n"
        "except KeyboardInterrupt:\n"
        "    assert nx.number_weakly_connected_components(G, backend='swapless') >= 1\n"
        "    sys.exit(42)\n"
    )
    assert interrupted(script, after=1.5) < 30


def test_python_dash_m_is_the_command_line(tmp_path):
    g = sl.generate("kron", scale=8, output=tmp_path / "k.sl")
    completed = subprocess.run([sys.executable, "-m", "swapless", "info", g.path],
                               capture_output=True, text=True)
    assert completed.returncode == 0 and "vertices" in completed.stdout
    completed = subprocess.run([sys.executable, "-m", "swapless", "run", "bfs", str(tmp_path / "no.sl")],
                               capture_output=True, text=True)
    assert completed.returncode == 1 and completed.stderr.startswith("error: ")


def test_python_dash_m_says_how_to_install_the_program_when_it_is_missing(tmp_path):
    # No SWAPLESS_BIN and a PATH without the program: one sentence, exit 2.
    environment = {key: value for key, value in os.environ.items() if key != "SWAPLESS_BIN"}
    environment["PATH"] = str(tmp_path)
    completed = subprocess.run([sys.executable, "-m", "swapless", "info", "g.sl"],
                               capture_output=True, text=True, env=environment)
    assert completed.returncode == 2
    assert "cargo install --path crates/cli" in completed.stderr, completed.stderr


def test_a_budget_beyond_what_the_process_may_use_is_warned_of(tmp_path):
    g = sl.generate("urand", scale=8, output=tmp_path / "u.sl")
    with pytest.warns(ResourceWarning, match="this process may use"):
        sl.open(g.path, memory="1000T").plan("bfs")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sl.open(g.path, memory="64M").plan("bfs")


def test_a_runs_peak_is_its_own_and_what_it_adds_stays_within_memory(tmp_path):
    g = sl.generate("kron", scale=14, degree=8, output=tmp_path / "k.sl")
    # A high-water mark 256 MiB above what is resident now, set before the runs: a
    # report that gave the process's peak would be that far above its start.
    ballast = np.ones(256 << 20, dtype=np.uint8)
    del ballast
    for kernel, tier in [(sl.pagerank, "direct"), (sl.bfs, "mmap")]:
        on_disk = sl.open(g.path, memory=SMALL, tier=tier)
        kernel(on_disk, **({"source": 0} if kernel is sl.bfs else {}))
        report = on_disk.last_report
        assert report["rss_at_start_bytes"] > 0
        added = report["peak_rss_bytes"] - report["rss_at_start_bytes"]
        assert added <= 18 << 20, (kernel.__name__, tier, added)


def test_the_package_says_its_version_and_keeps_its_helpers_private():
    version = subprocess.run([os.environ.get("SWAPLESS_BIN", "swapless"), "--version"],
                             capture_output=True, text=True).stdout.split()
    assert sl.__version__ == version[-1]
    public = {name for name in dir(sl) if not name.startswith("_")}
    assert not public & {"np", "os", "json", "tempfile", "warnings"}
    assert set(sl.__all__) <= public


def test_compressed_lists_hold_the_plain_lists_in_fewer_bytes_and_build_back(tmp_path):
    plain = sl.generate("kron", scale=10, degree=8, weighted=True, output=tmp_path / "plain.sl")
    packed = sl.generate("kron", scale=10, degree=8, weighted=True,
                         output=tmp_path / "packed.sl", lists="compressed")
    assert plain.build_report["lists"] == "plain"
    assert packed.build_report["lists"] == "compressed"
    assert packed.build_report["list_bytes_per_arc"] < plain.build_report["list_bytes_per_arc"]
    packed.check()
    info = packed.info()
    assert (info["lists"], info["version"]) == ("compressed", 4)
    assert info["list_bytes"] == packed.build_report["list_bytes"]
    assert plain.info()["lists"] == "plain"
    sl.build(packed.path, tmp_path / "back.sl", weighted=True, lists="plain")
    assert (tmp_path / "back.sl").read_bytes() == (tmp_path / "plain.sl").read_bytes()
    with pytest.raises(ValueError, match="lists="):
        sl.generate("kron", scale=8, output=tmp_path / "bad.sl", lists="zip")
    assert not (tmp_path / "bad.sl").exists()


def test_a_graph_without_vertices_runs_and_answers_nothing():
    for directed in (False, True):
        g = sl.from_networkx(nx.DiGraph() if directed else nx.Graph())
        assert (g.n, g.m) == (0, 0)
        for result in (sl.pagerank(g), sl.run(g, "pr64"),
                       sl.connected_components(g), sl.core_number(g),
                       sl.eigenvector_centrality(g), sl.closeness(g)):
            assert len(result) == 0
        assert g.last_report["result"].get("converged", True)
        assert sl.triangle_count(g) == 0


def test_pagerank_reads_a_series_of_weights_by_its_index():
    import pandas as pd
    g = sl.from_networkx(nx.path_graph(7))
    series = pd.Series({3: 1.0, 0: 0.0, 1: 0.0, 2: 0.0, 4: 0.0, 5: 0.0, 6: 0.0})
    by_index = sl.pagerank(g, personalization=series)
    assert np.abs(by_index - sl.pagerank(g, personalization={3: 1})).max() == 0


def test_from_networkx_takes_a_weight_function_as_networkx_does():
    G = nx.path_graph(4)
    g = sl.from_networkx(G, weight=lambda u, v, data: u + v)
    distances = sl.sssp(g, 0)
    assert distances.tolist() == [0.0, 1.0, 4.0, 9.0]
    with pytest.raises(ValueError, match="gives None for an edge"):
        sl.from_networkx(G, weight=lambda u, v, data: None if u == 1 else 1)
    # The backend's distances read the same function.
    assert nx.eccentricity(G, weight=lambda u, v, d: u + v, backend="swapless") == \
        nx.eccentricity(G, weight=lambda u, v, d: u + v)
