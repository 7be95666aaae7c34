"""Questions about given vertices: a vertex's neighbors, the neighbors two share and
their Jaccard coefficient, read from the file, against networkx on plain, compressed
and reordered files, with self-loops, names and directions; a damaged list raises."""

import itertools

import networkx as nx
import numpy as np
import pytest

import swapless as sl
from slfile import SlGraph, networkx_graph


@pytest.fixture(scope="module")
def kron_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pairs")
    made = []
    for name, options in [("plain", {}), ("compressed", {"lists": "compressed"}),
                          ("reordered", {"reorder": "dbg"}), ("loops", {"self_loops": "keep"})]:
        g = sl.generate("kron", scale=9, degree=8, output=folder / f"{name}.sl", **options)
        # The test's own reader reads plain lists: the compressed file is the plain one's.
        made.append((name, g, networkx_graph(made[0][1].path if name == "compressed"
                                             else g.path)))
    return made


def test_neighbors_common_neighbors_and_jaccard_are_networkx_s(kron_files):
    rng = np.random.default_rng(4)
    for name, g, G in kron_files:
        for v in rng.choice(g.n, 60, replace=False).tolist():
            assert g.neighbors(v).tolist() == sorted(G[v]), (name, v)
        pairs = [tuple(pair) for pair in rng.integers(0, g.n, size=(300, 2)).tolist()]
        pairs += list(itertools.islice(G.edges, 100)) + [(v, v) for v in range(5)]
        expected = [p for _, _, p in nx.jaccard_coefficient(G, pairs)]
        # The same counts divided: the same floats.
        assert sl.jaccard_coefficient(g, pairs).tolist() == expected, name
        assert sl.jaccard_coefficient(g, np.array(pairs)).tolist() == expected, name
        for u, v in pairs[:100] + pairs[-10:]:
            assert set(sl.common_neighbors(g, u, v).tolist()) == nx.common_neighbors(G, u, v)
    assert any(nx.number_of_selfloops(G) for _, _, G in kron_files)


def test_names_directions_and_wrong_asks():
    G = nx.relabel_nodes(nx.karate_club_graph(), lambda v: f"n{v}")
    g = sl.from_networkx(G)
    assert sorted(g.neighbors("n0").tolist()) == sorted(G["n0"])
    assert sl.jaccard_coefficient(g, [("n0", "n1")]).tolist() == \
        [p for _, _, p in nx.jaccard_coefficient(G, [("n0", "n1")])]
    with pytest.raises(KeyError):
        g.neighbors("nobody")
    with pytest.raises(KeyError):
        sl.jaccard_coefficient(g, [("n0", "nobody")])
    D = nx.gnp_random_graph(40, 0.1, seed=3, directed=True)
    d = sl.from_networkx(D)
    for v in D:
        assert d.neighbors(v).tolist() == sorted(D.successors(v))
        assert d.neighbors(v, direction="in").tolist() == sorted(D.predecessors(v))
    with pytest.raises(ValueError, match="undirected"):
        sl.jaccard_coefficient(d, [(0, 1)])
    with pytest.raises(ValueError, match="undirected"):
        sl.common_neighbors(d, 0, 1)
    with pytest.raises(ValueError, match="direction"):
        d.neighbors(0, direction="both")
    assert sl.jaccard_coefficient(g, []).tolist() == []
    with pytest.raises(ValueError, match="pairs"):
        sl.jaccard_coefficient(g, ["n0", "n1"])


def test_a_damaged_list_raises_instead_of_answering(tmp_path):
    g = sl.generate("kron", scale=10, degree=8, output=tmp_path / "k.sl")
    offset, length = SlGraph(g.path).sections["out_neighbors"]
    data = bytearray((tmp_path / "k.sl").read_bytes())
    # The lowest bit of the last id: still a vertex, so only a checksum sees it.
    data[offset + length - 4] ^= 1
    (tmp_path / "damaged.sl").write_bytes(bytes(data))
    damaged = sl.open(tmp_path / "damaged.sl")
    last = max(v for v in range(g.n) if len(g.neighbors(v)))
    with pytest.raises(sl.FormatError, match="fails its checksum"):
        damaged.neighbors(last)
    with pytest.raises(sl.FormatError, match="fails its checksum"):
        sl.jaccard_coefficient(damaged, [(0, last)])
    # A list elsewhere in the file still reads.
    assert damaged.neighbors(0).tolist() == g.neighbors(0).tolist()


def test_labels_of_any_kind_and_pairs_from_any_iterable():
    G = nx.Graph([("a", 1), (1, (2, 3)), ((2, 3), "a"), ("b", 1), ((0, 0), (2, 3))])
    g = sl.from_networkx(G)
    pairs = [(1, "b"), ((2, 3), "b"), ((0, 0), 1), ("a", (2, 3))]
    expected = [p for _, _, p in nx.jaccard_coefficient(G, pairs)]
    assert sl.jaccard_coefficient(g, pairs).tolist() == expected
    assert sl.jaccard_coefficient(g, iter(pairs)).tolist() == expected
    assert sl.jaccard_coefficient(g, (pair for pair in pairs)).tolist() == expected
    with pytest.raises(ValueError, match="pairs"):
        sl.jaccard_coefficient(g, [(1, "b", "a")])
