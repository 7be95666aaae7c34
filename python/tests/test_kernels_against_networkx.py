"""Every kernel of `swapless run` against networkx on the same input: the real
graphs in data/ and generated ones (directed, weighted, reordered)."""

import gzip
import json
import os
import pathlib
import subprocess

import networkx as nx
import numpy as np
import pytest

from slfile import networkx_graph, real_edge_lists

ROOT = pathlib.Path(__file__).resolve().parents[2]
SWAPLESS = os.environ.get("SWAPLESS_BIN", str(ROOT / "target" / "release" / "swapless"))


def swapless(*args):
    completed = subprocess.run([SWAPLESS, *map(str, args)], capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


def run(kernel, graph, tmp_path, *extra):
    out = tmp_path / f"{kernel}.npy"
    report = tmp_path / f"{kernel}.json"
    args = ["run", kernel, graph, "--json", report, *extra]
    if kernel != "tc":
        args += ["--out", out]
    swapless(*args)
    result = np.load(out) if kernel != "tc" else None
    return result, json.loads(report.read_text())


def graphs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("graphs")
    made = []
    for source, undirected in real_edge_lists():
        output = folder / source.name.replace(".el.gz", ".sl")
        swapless("build", source, "-o", output, *(["--undirected"] if undirected else []))
        made.append(output)
    kron = folder / "kron-weighted-dbg.sl"
    swapless("generate", "kron", "--scale", "9", "--degree", "8", "--weighted", "--reorder", "dbg", "-o", kron)
    made.append(kron)
    directed = folder / "directed-weighted.el"
    rng = np.random.default_rng(7)
    edges = rng.integers(0, 300, size=(2000, 2))
    directed.write_text("".join(f"{u} {v} {w}\n" for (u, v), w in zip(edges.tolist(), rng.integers(1, 20, 2000).tolist())))
    directed_sl = folder / "directed-weighted.sl"
    swapless("build", directed, "--weighted", "-o", directed_sl)
    made.append(directed_sl)
    grid = folder / "grid.sl"
    swapless("generate", "grid", "--rows", "30", "--cols", "30", "--weighted", "-o", grid)
    made.append(grid)
    return made


@pytest.fixture(scope="module")
def all_graphs(tmp_path_factory):
    return [(path, networkx_graph(path)) for path in graphs(tmp_path_factory)]


def test_bfs_and_sssp_match_networkx(all_graphs, tmp_path):
    for path, g in all_graphs:
        source = next(v for v in g.nodes if g.degree(v) > 0)
        parents, report = run("bfs", path, tmp_path, "--source", source)
        depth = nx.single_source_shortest_path_length(g, source)
        assert report["result"]["reached"] == len(depth)
        assert {v for v in range(len(parents)) if parents[v] >= 0} == set(depth)
        for v, d in depth.items():
            if v != source:
                assert depth[int(parents[v])] == d - 1 and g.has_edge(int(parents[v]), v)
        distances, _ = run("sssp", path, tmp_path, "--source", source, "--delta", "4")
        expected = nx.single_source_dijkstra_path_length(g, source, weight="weight")
        for v in range(len(distances)):
            if v in expected:
                assert distances[v] == pytest.approx(expected[v], rel=1e-9)
            else:
                assert np.isinf(distances[v])


def test_pagerank_matches_networkx(all_graphs, tmp_path):
    for path, g in all_graphs:
        scores, report = run("pr", path, tmp_path, "--tolerance", "1e-12", "--max-iters", "1000")
        expected = nx.pagerank(g, alpha=0.85, tol=1e-13, max_iter=1000, weight=None)
        assert scores.sum() == pytest.approx(1.0, abs=1e-9)
        reference = np.array([expected[v] for v in range(len(scores))])
        assert np.abs(scores - reference).max() < 1e-8, path.name


def test_gauss_seidel_pagerank_reaches_networkx_scores(all_graphs, tmp_path):
    for path, g in all_graphs:
        scores, report = run("pr", path, tmp_path, "--tolerance", "1e-12", "--max-iters", "1000",
                             "--method", "gauss-seidel")
        assert report["result"]["method"] == "gauss-seidel"
        expected = nx.pagerank(g, alpha=0.85, tol=1e-13, max_iter=1000, weight=None)
        assert scores.sum() == pytest.approx(1.0, abs=1e-9)
        reference = np.array([expected[v] for v in range(len(scores))])
        assert np.abs(scores - reference).max() < 1e-8, path.name


def test_personalized_pagerank_matches_networkx(all_graphs, tmp_path):
    for path, g in all_graphs:
        with_edges = [v for v in g.nodes if g.degree(v) > 0]
        for seeds in (with_edges[:1], with_edges[::max(1, len(with_edges) // 3)][:3]):
            for method in ("power", "gauss-seidel"):
                scores, report = run("ppr", path, tmp_path, "--seeds", ",".join(map(str, seeds)),
                                     "--tolerance", "1e-12", "--max-iters", "1000",
                                     "--method", method, "--verify")
                expected = nx.pagerank(g, alpha=0.85, tol=1e-13, max_iter=1000, weight=None,
                                       personalization={s: 1 for s in seeds})
                reference = np.array([expected[v] for v in range(len(scores))])
                # Scores are stored as f32 (about 1e-7 relative), and near the seeds they are
                # large, so the bound is relative there.
                assert (np.abs(scores - reference) <= 1e-8 + 2e-7 * reference).all(), \
                    (path.name, seeds, method)


def test_pr64_with_every_option_matches_networkx(all_graphs, tmp_path):
    for path, g in all_graphs:
        nodes = sorted(g.nodes)
        personalization = {v: 1 + v % 3 for v in nodes[::3]}
        dangling = {v: 2 + v % 5 for v in nodes[1::4]}
        nstart = {v: 1 + v % 2 for v in nodes[::2]}
        # Listed on the command line, and in files one `ID WEIGHT` a line.
        listed = lambda weights: ",".join(f"{v}:{w}" for v, w in list(weights.items())[:50])
        (tmp_path / "dangling.txt").write_text("".join(f"{v} {w}\n" for v, w in dangling.items()))
        (tmp_path / "start.txt").write_text("".join(f"{v} {w}\n" for v, w in nstart.items()))
        personalization = dict(list(personalization.items())[:50])
        scores, report = run("pr64", path, tmp_path, "--vertex-tolerance", "1e-14",
                             "--max-iters", "1000", "--personalization", listed(personalization),
                             "--dangling", f"@{tmp_path / 'dangling.txt'}",
                             "--start", f"@{tmp_path / 'start.txt'}", "--verify")
        expected = nx.pagerank(g, alpha=0.85, tol=1e-14, max_iter=1000, weight=None,
                               personalization=personalization, dangling=dangling, nstart=nstart)
        reference = np.array([expected[v] for v in range(len(scores))])
        assert np.abs(scores - reference).max() < 1e-12, path.name


def test_weighted_pagerank_from_python_matches_networkx(tmp_path):
    import swapless as sl
    rng = np.random.default_rng(7)
    nxg = nx.gnp_random_graph(300, 0.02, directed=True, seed=7)
    for u, v in nxg.edges:
        nxg[u][v]["weight"] = float(rng.integers(1, 9)) / 4
    g = sl.from_networkx(nxg, weight="weight")
    personalization = {v: float(rng.random()) for v in list(nxg)[:40]}
    scores = sl.pagerank(g, tol=1e-12, weighted=True, personalization=personalization)
    assert g.last_report["kernel"] == "wpr64"
    expected = nx.pagerank(nxg, tol=1e-12 / 300, personalization=personalization)
    reference = np.array([expected[v] for v in g.ids])
    assert np.abs(scores - reference).max() < 1e-12
    # The same weights as an array in the order of g.ids.
    array = np.array([personalization.get(v, 0.0) for v in g.ids])
    again = sl.pagerank(g, tol=1e-12, weighted=True, personalization=array)
    assert np.abs(again - scores).max() < 1e-15


def test_personalized_pagerank_from_python_takes_ids_and_keywords(tmp_path):
    import swapless as sl
    nxg = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])
    g = sl.from_networkx(nxg)
    scores = sl.run(g, "ppr", seeds=["a"], alpha=0.5, tol=1e-12, max_iter=500)
    expected = nx.pagerank(nxg, alpha=0.5, tol=1e-13, max_iter=500, personalization={"a": 1})
    reference = np.array([expected[v] for v in g.ids])
    assert (np.abs(scores - reference) <= 1e-8 + 2e-7 * reference).all()
    # The report speaks the graph's own ids, as the results do.
    assert g.last_report["result"]["seeds"] == ["a"]
    assert "ppr" in sl.kernels() and "seeds" in {p["keyword"] for p in sl.kernels()["ppr"]["parameters"]}
    with pytest.raises(TypeError, match="ppr takes no delta="):
        sl.run(g, "ppr", delta=2.0)
    with pytest.raises(ValueError, match="alpha must be a number between 0 and 1"):
        sl.run(g, "ppr", alpha=3)
    with pytest.raises(KeyError):
        sl.run(g, "ppr", seeds=["nobody"])
    with pytest.warns(RuntimeWarning, match="ppr stopped at max_iter=1"):
        sl.run(g, "ppr", seeds=["a"], max_iter=1)
    # On a graph whose ids are its vertices, a bad seed is named by its keyword.
    dense = sl.generate("kron", scale=6, degree=4, output=tmp_path / "dense.sl")
    with pytest.raises(ValueError, match="seeds must be a vertex id"):
        sl.run(dense, "ppr", seeds=[-1])


def test_components_match_networkx(all_graphs, tmp_path):
    for path, g in all_graphs:
        labels, report = run("cc", path, tmp_path)
        parts = nx.weakly_connected_components(g) if g.is_directed() else nx.connected_components(g)
        parts = list(parts)
        assert report["result"]["components"] == len(parts)
        for part in parts:
            assert len({int(labels[v]) for v in part}) == 1
        assert len(set(labels.tolist())) == len(parts)


def test_strong_components_match_networkx(all_graphs, tmp_path):
    for path, g in all_graphs:
        labels, report = run("scc", path, tmp_path, "--verify")
        parts = list(nx.strongly_connected_components(g) if g.is_directed()
                     else nx.connected_components(g))
        assert report["result"]["components"] == len(parts)
        for part in parts:
            assert len({int(labels[v]) for v in part}) == 1
            # The label is a member's id.
            assert int(labels[next(iter(part))]) in part
        assert len(set(labels.tolist())) == len(parts)


def test_closeness_harmonic_and_eccentricity_match_networkx(all_graphs, tmp_path):
    # Exact measures search from every vertex: the small graphs only.
    for path, g in [(path, g) for path, g in all_graphs if len(g) <= 1000]:
        found = {}
        for measure in ("closeness", "closeness-unscaled", "harmonic", "eccentricity"):
            found[measure], report = run("closeness", path, tmp_path, "--measure", measure,
                                         "--verify")
            assert report["result"]["measure"] == measure
        closeness = nx.closeness_centrality(g)
        unscaled = nx.closeness_centrality(g, wf_improved=False)
        harmonic = nx.harmonic_centrality(g)
        for v in g:
            # The same sums divided in the same order: the same float.
            assert found["closeness"][v] == closeness[v]
            assert found["closeness-unscaled"][v] == unscaled[v]
            assert found["harmonic"][v] == pytest.approx(harmonic[v], rel=1e-12)
            hops = nx.single_source_shortest_path_length(g, v)
            assert found["eccentricity"][v] == max(hops.values())
        everywhere = nx.is_strongly_connected(g) if g.is_directed() else nx.is_connected(g)
        assert report["result"]["strongly_connected"] == everywhere
        # By weight (1 where the graph has none), with shortest paths from every vertex.
        weighted = {}
        for measure in ("closeness", "harmonic", "eccentricity", "distance-sum"):
            weighted[measure], _ = run("wcloseness", path, tmp_path, "--measure", measure,
                                       "--verify")
        closeness = nx.closeness_centrality(g, distance="weight")
        harmonic = nx.harmonic_centrality(g, distance="weight")
        for v in g:
            lengths = nx.single_source_dijkstra_path_length(g, v)
            assert weighted["eccentricity"][v] == max(lengths.values())
            assert weighted["closeness"][v] == pytest.approx(closeness[v], rel=1e-12)
            assert weighted["harmonic"][v] == pytest.approx(harmonic[v], rel=1e-12)
        total = sum(sum(nx.single_source_dijkstra_path_length(g, v).values()) for v in g)
        assert weighted["distance-sum"].sum() == pytest.approx(total, rel=1e-12)


def test_clustering_matches_networkx_directed_and_undirected(all_graphs, tmp_path):
    for path, g in all_graphs:
        # networkx's clustering leaves self-loops out, as swapless's build does.
        expected = nx.clustering(g)
        values, report = run("clustering", path, tmp_path, "--verify")
        reference = np.array([expected.get(v, 0.0) for v in range(len(values))])
        assert np.abs(values - reference).max() <= 1e-15, path.name
        assert report["result"]["average_clustering"] == pytest.approx(
            nx.average_clustering(g), rel=1e-12)
        # By weight (1 where the graph has none): geometric means of normalized weights.
        expected = nx.clustering(g, weight="weight")
        values, report = run("wclustering", path, tmp_path, "--verify")
        reference = np.array([expected.get(v, 0.0) for v in range(len(values))])
        assert np.abs(values - reference).max() <= 1e-12, path.name
        assert report["result"]["average_clustering"] == pytest.approx(
            nx.average_clustering(g, weight="weight"), rel=1e-12)


def test_triangles_mis_and_radii_match_networkx(all_graphs, tmp_path):
    for path, g in all_graphs:
        undirected = g.to_undirected() if g.is_directed() else g
        expected = nx.triangles(undirected)
        _, report = run("tc", path, tmp_path)
        assert report["result"]["triangles"] == sum(expected.values()) // 3
        through, report = run("triangles", path, tmp_path, "--verify")
        assert through.tolist() == [expected.get(v, 0) for v in range(len(through))]
        assert report["result"]["triangles"] == sum(expected.values()) // 3
        members, _ = run("mis", path, tmp_path)
        chosen = {v for v in range(len(members)) if members[v] == 1}
        assert all(not (u in chosen and v in chosen) for u, v in undirected.edges)
        assert nx.is_dominating_set(undirected, chosen)
        estimates, report = run("radii", path, tmp_path)
        lengths = [nx.single_source_shortest_path_length(g, s) for s in report["result"]["source_ids"]]
        for v in range(len(estimates)):
            reached = [d[v] for d in lengths if v in d]
            assert estimates[v] == (max(reached) if reached else -1)


def test_core_numbers_match_networkx(all_graphs, tmp_path):
    for path, g in all_graphs:
        cores, report = run("kcore", path, tmp_path, "--verify")
        expected = nx.core_number(g)
        assert cores.tolist() == [expected[v] for v in range(len(cores))], path.name
        assert report["result"]["degeneracy"] == max(expected.values())


def test_k_truss_matches_networkx(all_graphs, tmp_path):
    for path, g in all_graphs:
        if g.is_directed():
            continue
        simple = nx.Graph(g)
        simple.remove_edges_from(nx.selfloop_edges(simple))
        for k in (2, 3, 4, 5, 7):
            edges, report = run("ktruss", path, tmp_path, "--k", k, "--verify")
            expected = nx.k_truss(simple, k)
            assert edges.shape == (expected.number_of_edges(), 2), (path.name, k)
            assert {tuple(edge) for edge in edges.tolist()} == \
                {(min(u, v), max(u, v)) for u, v in expected.edges}, (path.name, k)
            assert report["result"]["vertices"] == expected.number_of_nodes()


def test_exact_betweenness_matches_networkx(tmp_path):
    for extra in [[], ["--reorder", "dbg"]]:
        path = tmp_path / "small.sl"
        swapless("generate", "kron", "--scale", "8", "--degree", "4", "-o", path, *extra)
        g = networkx_graph(path)
        scores, report = run("bc", path, tmp_path, "--sources", "all")
        expected = nx.betweenness_centrality(g, normalized=False)
        reference = np.array([expected[v] for v in range(len(scores))])
        # networkx counts each unordered pair once; swapless's sums count both orders,
        # and the report says what they were divided by.
        sums = scores * report["result"]["largest_dependency"]
        assert np.abs(sums / 2 - reference).max() < 1e-9 * reference.max()
        reference /= reference.max()
        assert np.abs(scores - reference).max() < 1e-9


def test_betweenness_by_weight_matches_networkx(all_graphs, tmp_path):
    # Weights in quarters make many shortest paths tie, and their sums exact.
    ties = tmp_path / "ties.el"
    rng = np.random.default_rng(11)
    edges = rng.integers(0, 150, size=(600, 2))
    weights = rng.choice([0.25, 0.5, 0.75, 1.5], size=600)
    ties.write_text("".join(f"{u} {v} {w}\n" for (u, v), w in zip(edges.tolist(), weights)))
    swapless("build", ties, "--weighted", "--undirected", "-o", tmp_path / "ties.sl")
    small = [(path, g) for path, g in all_graphs if len(g) <= 1000]
    for path, g in small + [(tmp_path / "ties.sl", networkx_graph(tmp_path / "ties.sl"))]:
        scores, report = run("wbc", path, tmp_path, "--sources", "all", "--verify")
        expected = nx.betweenness_centrality(g, normalized=False, weight="weight")
        reference = np.array([expected.get(v, 0.0) for v in range(len(scores))])
        sums = scores * report["result"]["largest_dependency"]
        # networkx counts an undirected graph's unordered pairs once.
        sums = sums if g.is_directed() else sums / 2
        assert np.abs(sums - reference).max() <= 1e-9 * max(reference.max(), 1), path.name


def test_eigenvector_katz_and_hits_match_networkx(all_graphs, tmp_path):
    for path, g in all_graphs:
        plain = nx.DiGraph(g.edges()) if g.is_directed() else nx.Graph(g.edges())
        plain.add_nodes_from(g.nodes)
        scores, report = run("eigenvector", path, tmp_path, "--max-iters", "1000", "--verify")
        try:
            expected = nx.eigenvector_centrality(plain, max_iter=1000)
        except nx.PowerIterationFailedConvergence:
            assert not report["result"]["converged"], path.name
        else:
            assert report["result"]["converged"], path.name
            reference = np.array([expected[v] for v in range(len(scores))])
            assert np.abs(scores - reference).max() < 1e-12, path.name
        # Below one over the largest eigenvalue, which no degree exceeds.
        alpha = 0.5 / max(d for _, d in plain.degree())
        scores, _ = run("katz", path, tmp_path, "--attenuation", alpha, "--verify")
        expected = nx.katz_centrality(plain, alpha=alpha)
        reference = np.array([expected[v] for v in range(len(scores))])
        assert np.abs(scores - reference).max() < 1e-12, path.name
        if not plain.is_directed() and nx.is_bipartite(plain):
            # networkx's ARPACK answer is any vector of a repeated singular value's space.
            continue
        expected_hubs, expected_authorities = nx.hits(plain, tol=1e-10, max_iter=1000)
        for which, expected in (("hubs", expected_hubs), ("authorities", expected_authorities)):
            scores, _ = run("hits", path, tmp_path, "--scores", which, "--tolerance", "1e-12",
                            "--max-iters", "10000", "--verify")
            reference = np.array([expected[v] for v in range(len(scores))])
            assert scores.sum() == pytest.approx(1.0, abs=1e-12)
            assert np.abs(scores - reference).max() < 1e-7 * reference.max(), (path.name, which)


def test_average_neighbor_degree_matches_networkx_exactly(all_graphs, tmp_path):
    for path, g in all_graphs:
        sides = ["out", "in", "in+out"] if g.is_directed() else ["out"]
        for source in sides:
            for target in sides:
                for kernel, weight in (("neighbor-degree", None), ("wneighbor-degree", "weight")):
                    values, _ = run(kernel, path, tmp_path, "--neighbors", source, "--degree",
                                    target, "--verify")
                    if weight and not nx.is_weighted(g):
                        weight = None
                    expected = nx.average_neighbor_degree(g, source=source, target=target,
                                                          weight=weight)
                    reference = np.array([expected[v] for v in range(len(values))])
                    # Whole degrees (times whole weights): the same sums, exactly.
                    assert np.array_equal(values, reference), (path.name, kernel, source, target)


def test_label_propagation_matches_networkx(all_graphs, tmp_path):
    for path, g in all_graphs:
        if g.is_directed():
            completed = subprocess.run([SWAPLESS, "run", "lpa", str(path)], capture_output=True,
                                       text=True)
            assert completed.returncode == 2 and "undirected graphs only" in completed.stderr
            continue
        labels, report = run("lpa", path, tmp_path, "--verify")
        plain = nx.Graph()
        plain.add_nodes_from(range(len(labels)))
        plain.add_edges_from(g.edges())
        expected = {frozenset(c) for c in nx.community.label_propagation_communities(plain)}
        found = {}
        for v, label in enumerate(labels.tolist()):
            found.setdefault(label, set()).add(v)
        assert {frozenset(c) for c in found.values()} == expected, path.name
        assert report["result"]["communities"] == len(expected)


def _partition(labels, vertices):
    """The sets of vertices (of ``vertices``) sharing a label."""
    found = {}
    for v, label in enumerate(labels.tolist()):
        if v in vertices:
            found.setdefault(label, set()).add(v)
    return list(found.values())


@pytest.mark.parametrize("weighted", [False, True])
def test_louvain_reports_its_modularity_and_matches_networkx_in_quality(all_graphs, tmp_path,
                                                                        weighted):
    # networkx visits the nodes at random, swapless in order: the partitions differ, their
    # modularity is what compares (networkx's modularity of swapless's partition).
    for path, g in all_graphs:
        weight = "weight" if weighted else None
        if weighted and not any(w != 1 for _, _, w in g.edges(data="weight")):
            continue
        labels, report = run("wlouvain" if weighted else "louvain", path, tmp_path, "--verify")
        partition = _partition(labels, g)
        found = nx.community.modularity(g, partition, weight=weight)
        assert report["result"]["modularity"] == pytest.approx(found, rel=1e-9, abs=1e-12)
        assert report["result"]["communities"] == len(set(labels.tolist()))
        expected = nx.community.modularity(
            g, nx.community.louvain_communities(g, weight=weight, seed=1), weight=weight)
        assert found >= expected - 0.03, (path.name, found, expected)


def test_louvain_takes_networkx_resolution_and_levels_and_self_loops(tmp_path):
    import swapless as sl

    G = nx.gnp_random_graph(300, 0.02, seed=4)
    G.add_edges_from((v, v) for v in range(0, 300, 7))
    g = sl.from_networkx(G)
    assert g.info()["self_loops"] == 43
    for resolution in (0.5, 2.0):
        labels = sl.louvain(g, resolution=resolution, verify=True)
        found = nx.community.modularity(G, _partition(labels, G), resolution=resolution)
        assert g.last_report["result"]["modularity"] == pytest.approx(found, rel=1e-9)
        expected = nx.community.modularity(
            G, nx.community.louvain_communities(G, resolution=resolution, seed=1),
            resolution=resolution)
        assert found >= expected - 0.03, (resolution, found, expected)
    one = sl.louvain(g, max_level=1)
    assert g.last_report["result"]["levels"] == 1
    assert len(set(one.tolist())) >= len(set(sl.louvain(g).tolist()))
    with pytest.raises(ValueError, match="max_level"):
        sl.louvain(g, max_level=0)
