"""Graphs whose vertices the input calls by any id: names in Unicode and 64-bit
integers come back as ``g.ids``, ``source=`` takes them, and ``sl.to_pandas`` keys
results by them; the answers equal networkx's on the same named graph."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import swapless as sl


def random_named_graph(tmp_path, name_of, seed=3, n=400, m=2400):
    """A random directed graph whose vertices the text file calls ``name_of(v)``,
    with the networkx graph of the same names."""
    rng = np.random.default_rng(seed)
    sources = rng.integers(0, n, m)
    targets = rng.integers(0, n, m)
    ring = np.arange(n)
    sources = np.concatenate([sources, ring])
    targets = np.concatenate([targets, (ring + 1) % n])
    lines = [f"{name_of(s)}\t{name_of(t)}\n" for s, t in zip(sources, targets)]
    path = tmp_path / "named.el"
    path.write_text("".join(lines), encoding="utf-8")
    nxg = nx.DiGraph()
    # Python's builds keep self-loops, as networkx does.
    nxg.add_edges_from((name_of(s), name_of(t)) for s, t in zip(sources, targets))
    return path, nxg


NAMINGS = [
    ("unicode names", lambda v: f"Zoë-東京-{v * 7919 % 10007}"),
    ("64-bit ids", lambda v: (int(v) * 0x9E3779B97F4A7C15) % (2**63) - 2**62),
]


@pytest.mark.parametrize("label,name_of", NAMINGS, ids=[label for label, _ in NAMINGS])
def test_results_are_keyed_by_the_inputs_ids(tmp_path, label, name_of):
    path, nxg = random_named_graph(tmp_path, name_of)
    g = sl.build(path, tmp_path / "named.sl")
    expected_kind = "names" if label == "unicode names" else "integers"
    assert g.info()["ids"] == expected_kind
    assert sorted(g.ids.tolist()) == g.ids.tolist()
    assert set(g.ids.tolist()) == set(nxg.nodes)

    ranks = sl.to_pandas(sl.pagerank(g, tol=1e-7, max_iter=1000), g)
    assert ranks.name == "score" and ranks.index.name == "id"
    expected = nx.pagerank(nxg, tol=1e-13, max_iter=1000)
    for vertex, score in expected.items():
        assert ranks[vertex] == pytest.approx(score, rel=1e-4)

    source = name_of(5)
    depth = nx.single_source_shortest_path_length(nxg, source)
    parents = sl.to_pandas(sl.bfs(g, source=source), g)
    assert parents[source] == source
    for vertex, parent in parents.items():
        if vertex not in depth:
            assert parent is None or pd.isna(parent)
        elif vertex != source:
            assert depth[parent] + 1 == depth[vertex]
            assert nxg.has_edge(parent, vertex)

    labels = sl.to_pandas(sl.connected_components(g), g)
    for component in nx.weakly_connected_components(nxg):
        assert len({labels[v] for v in component}) == 1
        assert set(component) >= {labels[v] for v in component}


def test_ids_that_are_not_there_raise(tmp_path):
    path, _ = random_named_graph(tmp_path, lambda v: f"v{v}")
    g = sl.build(path, tmp_path / "named.sl")
    assert g.vertex("v12") == list(g.ids).index("v12")
    with pytest.raises(KeyError, match="mallory"):
        sl.bfs(g, source="mallory")
    with pytest.raises(KeyError):
        g.vertex(12)
    with pytest.raises(ValueError, match="ids="):
        sl.build(path, tmp_path / "other.sl", ids="sparse")
    with pytest.raises(sl.FormatError, match="named.el:1: `v[0-9]+` is not a vertex id"):
        sl.build(path, tmp_path / "dense.sl", ids="dense")


def test_a_dense_graph_keys_results_by_its_vertices(tmp_path):
    g = sl.from_edges([0, 1, 2], [1, 2, 0])
    assert g.info()["ids"] == "dense"
    assert g.ids.tolist() == [0, 1, 2]
    parents = sl.to_pandas(sl.bfs(g, source=0), g)
    assert parents.tolist() == [0, 0, 1]
    with pytest.raises(ValueError, match="kernel"):
        sl.to_pandas(np.zeros(3), sl.from_edges([0], [1]))


def edge_frame(name_of, n=300, m=1500, seed=5):
    """A random edge DataFrame whose vertices ``name_of`` names, with weights."""
    rng = np.random.default_rng(seed)
    sources = np.concatenate([rng.integers(0, n, m), np.arange(n)])
    targets = np.concatenate([rng.integers(0, n, m), (np.arange(n) + 1) % n])
    return pd.DataFrame({
        "weight": rng.integers(1, 9, sources.size).astype(np.float64),
        "from": [name_of(v) for v in sources],
        "to": [name_of(v) for v in targets],
    })


FRAMES = [
    ("strings with spaces", lambda v: f"user {v}, \"quoted\""),
    ("64-bit integers", lambda v: (int(v) * 0x9E3779B97F4A7C15) % (2**63)),
    ("small integers", lambda v: int(v)),
]


@pytest.mark.parametrize("label,name_of", FRAMES, ids=[label for label, _ in FRAMES])
def test_from_pandas_and_from_arrow_equal_networkx(tmp_path, label, name_of):
    import pyarrow as pa
    import pyarrow.dataset as ds

    df = edge_frame(name_of)
    # Of parallel edges swapless keeps the lightest; networkx would keep the last.
    lightest = df.groupby(["from", "to"], as_index=False)["weight"].min()
    nxg = nx.from_pandas_edgelist(lightest, "from", "to", edge_attr="weight",
                                  create_using=nx.DiGraph)
    expected = nx.pagerank(nxg, tol=1e-13, max_iter=1000, weight=None)
    source = name_of(3)
    distances = nx.single_source_dijkstra_path_length(nxg, source, weight="weight")
    pq_folder = tmp_path / "parts"
    pq_folder.mkdir()
    ds.write_dataset(pa.Table.from_pandas(df), pq_folder, format="parquet",
                     max_rows_per_file=600, max_rows_per_group=600)
    graphs = {
        "from_pandas": sl.from_pandas(df, source="from", target="to", weight="weight"),
        "from_arrow table": sl.from_arrow(pa.Table.from_pandas(df), source=1, target=2, weight=0),
        "from_arrow dataset": sl.from_arrow(ds.dataset(pq_folder), source="from", target="to",
                                            weight="weight"),
    }
    for how, g in graphs.items():
        ranks = sl.to_pandas(sl.pagerank(g, tol=1e-7, max_iter=1000), g)
        for vertex, score in expected.items():
            assert ranks[vertex] == pytest.approx(score, rel=1e-4), how
        found = sl.to_pandas(sl.sssp(g, source=source), g)
        for vertex, distance in found.items():
            assert distance == distances.get(vertex, np.inf), how


def test_from_networkx_keeps_any_labels_and_isolated_nodes():
    G = nx.Graph()
    G.add_nodes_from([("a", 1), ("b", 2), "lonely", 7])
    G.add_edge(("a", 1), ("b", 2), w=2.5)
    G.add_edge(("b", 2), 7)
    g = sl.from_networkx(G, weight="w")
    assert g.n == 4 and list(g.ids) == list(G)
    distances = sl.to_pandas(sl.sssp(g, source=7), g)
    assert distances[("a", 1)] == 3.5 and distances["lonely"] == np.inf
    labels = sl.to_pandas(sl.connected_components(g), g)
    assert labels[("a", 1)] == labels[7] != labels["lonely"]
    with pytest.raises(KeyError):
        sl.bfs(g, source="nobody")
