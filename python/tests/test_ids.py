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
    nxg.add_edges_from((name_of(s), name_of(t)) for s, t in zip(sources, targets) if s != t)
    return path, nxg


NAMINGS = [
    ("unicode names", lambda v: f"Zoë-東京-{v * 7919 % 10007}"),
    ("64-bit ids", lambda v: (v * 0x9E3779B97F4A7C15) % (2**63) - 2**62),
]


@pytest.mark.parametrize("label,name_of", NAMINGS, ids=[label for label, _ in NAMINGS])
def test_results_are_keyed_by_the_inputs_ids(tmp_path, label, name_of):
    path, nxg = random_named_graph(tmp_path, name_of)
    g = sl.build(path, tmp_path / "named.sl")
    expected_kind = "names" if label == "unicode names" else "integers"
    assert g.info()["ids"] == expected_kind
    assert sorted(g.ids.tolist()) == g.ids.tolist()
    assert set(g.ids.tolist()) == set(nxg.nodes)

    ranks = sl.to_pandas(sl.pagerank(g, tol=1e-10, max_iter=1000), g)
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
            assert pd.isna(parent)
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
    with pytest.raises(sl.FormatError, match="v0"):
        sl.build(path, tmp_path / "dense.sl", ids="dense")


def test_a_dense_graph_keys_results_by_its_vertices(tmp_path):
    g = sl.from_edges([0, 1, 2], [1, 2, 0])
    assert g.info()["ids"] == "dense"
    assert g.ids.tolist() == [0, 1, 2]
    parents = sl.to_pandas(sl.bfs(g, source=0), g)
    assert parents.tolist() == [0, 0, 1]
    with pytest.raises(ValueError, match="kernel"):
        sl.to_pandas(np.zeros(3), sl.from_edges([0], [1]))
