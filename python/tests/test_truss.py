"""The k-truss from Python: an array of edges, against networkx on plain, compressed,
reordered and self-looped files and on named vertices; its table of ids; what it
refuses."""

import networkx as nx
import numpy as np
import pytest

import swapless as sl
from slfile import networkx_graph


def _edges(pairs):
    return {(min(u, v), max(u, v)) for u, v in pairs}


def test_k_truss_is_networkx_s_on_every_kind_of_file(tmp_path):
    plain = None
    for name, options in [("plain", {}), ("compressed", {"lists": "compressed"}),
                          ("reordered", {"reorder": "dbg"}), ("loops", {"self_loops": "keep"})]:
        g = sl.generate("kron", scale=9, degree=8, output=tmp_path / f"{name}.sl", **options)
        plain = plain or g
        # The test's own reader reads plain lists: the compressed file is the plain one's.
        G = networkx_graph(plain.path if name == "compressed" else g.path)
        G.remove_edges_from(list(nx.selfloop_edges(G)))
        for k in (0, 3, 4, 6, 9):
            edges = sl.k_truss(g, k, verify=True)
            assert edges.dtype == np.int64 and edges.ndim == 2 and edges.shape[1] == 2
            # Rows sorted, the smaller end first.
            assert (edges[:, 0] < edges[:, 1]).all()
            assert edges.tolist() == sorted(edges.tolist())
            assert _edges(g.ids[edges].tolist()) == _edges(nx.k_truss(G, k).edges), (name, k)
            assert g.last_report["result"]["edges"] == len(edges)


def test_named_vertices_come_back_as_a_table_of_their_names():
    G = nx.relabel_nodes(nx.les_miserables_graph(), lambda name: f"@{name}")
    g = sl.from_networkx(G)
    edges = sl.k_truss(g, 5)
    table = sl.to_pandas(edges, g)
    assert list(table.columns) == ["source", "target"]
    assert _edges(zip(table.source, table.target)) == _edges(nx.k_truss(G, 5).edges)
    assert sl.to_pandas(sl.k_truss(g, 100), g, "ktruss").shape == (0, 2)
    with pytest.raises(ValueError, match="rows of two"):
        sl.to_pandas(edges[:, 0], g, "ktruss")


def test_what_k_truss_refuses():
    undirected = sl.from_networkx(nx.karate_club_graph())
    with pytest.raises(ValueError, match="between 0"):
        sl.k_truss(undirected, -1)
    with pytest.raises(TypeError, match="integer"):
        sl.k_truss(undirected, 3.0)
    directed = sl.from_networkx(nx.DiGraph([(0, 1), (1, 2), (2, 0)]))
    with pytest.raises(ValueError, match="undirected"):
        sl.k_truss(directed, 3)
