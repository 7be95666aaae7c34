"""The catalogue of hostile inputs as the Python API meets them: each case names the
call, the documented exception and a key phrase; a pre-existing output stays
byte-identical and no temporary is left in the folder."""

import gzip
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import swapless as sl
from slfile import SlGraph


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    folder = tmp_path_factory.mktemp("graph")
    return sl.generate("kron", scale=8, degree=8, output=str(folder / "k.sl"))


@pytest.fixture(scope="module")
def weighted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("weighted")
    src = np.arange(200) % 50
    dst = (np.arange(200) * 7 + 3) % 50
    return sl.from_edges(src, dst, weights=1.0 + (np.arange(200) % 5), path=str(folder / "w.sl"))


def edges(**weights):
    return dict(src=[0, 1, 2], dst=[1, 2, 0], **weights)


# (name, call taking (graph, weighted graph, folder), exception, phrase)
CASES = [
    ("from_edges: a NaN weight", lambda g, w, d: sl.from_edges(**edges(weights=[1.0, float("nan"), 1.0]), path=str(d / "out.sl")),
     ValueError, "weights[1]: `NaN` is not a finite number"),
    ("from_edges: an infinite weight", lambda g, w, d: sl.from_edges(**edges(weights=[np.inf, 1.0, 1.0]), path=str(d / "out.sl")),
     ValueError, "weights[0]"),
    ("from_edges: a weight beyond float32", lambda g, w, d: sl.from_edges(**edges(weights=[1e40, 1.0, 1.0]), path=str(d / "out.sl")),
     ValueError, "beyond the largest a 32-bit float"),
    ("from_edges: negative ids", lambda g, w, d: sl.from_edges([-1], [2], path=str(d / "out.sl")),
     ValueError, "outside"),
    ("from_edges: float ids", lambda g, w, d: sl.from_edges([0.5], [2.0], path=str(d / "out.sl")),
     TypeError, "integer vertex ids"),
    ("from_edges: arrays of different lengths", lambda g, w, d: sl.from_edges([0, 1], [1], path=str(d / "out.sl")),
     ValueError, "differ in length"),
    ("from_edges: two-dimensional ids", lambda g, w, d: sl.from_edges([[0, 1]], [[1, 0]], path=str(d / "out.sl")),
     ValueError, "one-dimensional"),
    ("from_edges: an id at the vertex count", lambda g, w, d: sl.from_edges([0], [5], num_vertices=5, path=str(d / "out.sl")),
     ValueError, "not below the vertex count"),
    ("from_edges: a path that is a folder", lambda g, w, d: sl.from_edges(**edges(), path=str(d)),
     sl.FormatError, "is a folder"),
    ("from_edges: a path in a missing folder", lambda g, w, d: sl.from_edges(**edges(), path=str(d / "no" / "g.sl")),
     sl.FormatError, "does not exist"),
    ("build: the output is the input", lambda g, w, d: sl.build(g.path, g.path),
     ValueError, "are the same file"),
    ("build: a device as the output", lambda g, w, d: sl.build(g.path, "/dev/null"),
     sl.FormatError, "needs a regular file"),
    ("build: a missing input", lambda g, w, d: sl.build(str(d / "none.el"), str(d / "out.sl")),
     OSError, "No such file"),
    ("build: binary data as an edge list", lambda g, w, d: sl.build(write(d / "b.el", bytes(range(256)) * 4), str(d / "out.sl")),
     sl.FormatError, "binary data"),
    ("build: a GAP header claiming 2^32-1 vertices", lambda g, w, d: sl.build(write(d / "h.sg.gz", gzip.compress(gap_header(2**32 - 1))), str(d / "out.sl"), memory="64M"),
     sl.FormatError, "more than the build's memory budget"),
    ("open: memory that is not a size", lambda g, w, d: sl.open(g.path, memory="abc"),
     ValueError, "is not a size"),
    ("open: memory of the wrong type", lambda g, w, d: sl.open(g.path, memory=1.5),
     TypeError, "memory must be a size"),
    ("open: a tier that does not exist", lambda g, w, d: sl.open(g.path, tier="ssd"),
     ValueError, "is not a tier"),
    ("open: a folder", lambda g, w, d: sl.open(str(d)),
     sl.FormatError, "is a folder"),
    ("open: a text file", lambda g, w, d: sl.open(write(d / "t.sl", b"0 1\n")),
     sl.FormatError, "not a swapless .sl graph file"),
    ("pagerank: max_iter=-1", lambda g, w, d: sl.pagerank(g, max_iter=-1),
     ValueError, "max_iter must be between 1"),
    ("pagerank: max_iter=2**40", lambda g, w, d: sl.pagerank(g, max_iter=2**40),
     ValueError, "max_iter must be between 1"),
    ("pagerank: max_iter=3.7", lambda g, w, d: sl.pagerank(g, max_iter=3.7),
     TypeError, "max_iter must be an integer"),
    ("pagerank: alpha=2", lambda g, w, d: sl.pagerank(g, alpha=2),
     ValueError, "alpha must be a finite number"),
    ("pagerank: tol=nan", lambda g, w, d: sl.pagerank(g, tol=float("nan")),
     ValueError, "tol must be a finite number"),
    ("pagerank: a personalization of zeros", lambda g, w, d: sl.pagerank(g, personalization={0: 0, 1: 0.0}),
     ValueError, "personalization's weights are all 0"),
    ("pagerank: a negative dangling weight", lambda g, w, d: sl.pagerank(g, dangling={0: -1}),
     ValueError, "dangling's weight must be a finite number at least 0"),
    ("pagerank: a start weight of NaN", lambda g, w, d: sl.pagerank(g, nstart={0: float("nan")}),
     ValueError, "nstart's weight must be a finite number"),
    ("pagerank: a personalization of an unknown vertex", lambda g, w, d: sl.pagerank(g, personalization={10**6: 1}),
     ValueError, "personalization 1000000 is not a vertex"),
    ("pagerank: a personalization array of the wrong length", lambda g, w, d: sl.pagerank(g, personalization=np.ones(3)),
     ValueError, "one weight per vertex"),
    ("pagerank: weights summing past the largest float", lambda g, w, d: sl.pagerank(g, personalization={0: 1e308, 1: 1e308}),
     ValueError, "summing to a finite number above 0"),
    ("pagerank: gauss-seidel with a personalization", lambda g, w, d: sl.pagerank(g, method="gauss-seidel", personalization={0: 1}),
     ValueError, "take method=\"power\""),
    ("run: pr64's personalization as a string", lambda g, w, d: sl.run(g, "pr64", personalization="0:1"),
     ValueError, "one weight per vertex"),
    ("sssp: delta=nan", lambda g, w, d: sl.sssp(w, delta=float("nan")),
     ValueError, "delta must be a finite number above 0"),
    ("sssp: delta=0", lambda g, w, d: sl.sssp(w, delta=0),
     ValueError, "delta must be a finite number above 0"),
    ("sssp: delta='1'", lambda g, w, d: sl.sssp(w, delta="1"),
     TypeError, "delta must be a number"),
    ("bfs: a negative source", lambda g, w, d: sl.bfs(g, source=-1),
     ValueError, "source must be a vertex id"),
    ("bfs: a source beyond the vertices", lambda g, w, d: sl.bfs(g, source=10**6),
     ValueError, "is not a vertex"),
    ("bfs: threads=0", lambda g, w, d: sl.bfs(g, threads=0),
     ValueError, "threads must be between 1"),
    ("bfs: threads=10000", lambda g, w, d: sl.bfs(g, threads=10000),
     ValueError, "threads is more than"),
    ("bfs: threads=1.5", lambda g, w, d: sl.bfs(g, threads=1.5),
     TypeError, "threads must be an integer"),
    ("betweenness: sources=0", lambda g, w, d: sl.betweenness(g, sources=0),
     ValueError, "sources must be a positive integer"),
    ("run: a budget below the least", lambda g, w, d: sl.pagerank(sl.open(g.path, memory="1K", tier="direct")),
     sl.BudgetError, "at least"),
    ("run: a damaged page", lambda g, w, d: sl.pagerank(sl.open(flip(g.path, d), memory="15M", tier="mmap")),
     sl.FormatError, "fails its checksum"),
    # ---- Tables and ids (issue 40) ----
    ("from_pandas: the source column chosen as the target", lambda g, w, d: sl.from_pandas(frame(), source="a", target="a", path=str(d / "out.sl")),
     sl.FormatError, 'the DataFrame: the source and target columns are both column "a"'),
    ("from_pandas: ids mixing integers and strings", lambda g, w, d: sl.from_pandas(frame(b=[1, "x", 2]), path=str(d / "out.sl"), source="a", target="b"),
     TypeError, "column 'b' mixes values of different types"),
    ("from_pandas: a null id is named by the frame's own row", lambda g, w, d: sl.from_pandas(frame(b=["x", "y", None]), source="a", target="b", path=str(d / "out.sl")),
     sl.FormatError, 'the DataFrame: row 2, column "b": the id is null'),
    ("from_pandas: rows named by the frame's index", lambda g, w, d: sl.from_pandas(frame(b=["x", None, "y"], index=[10, 20, 30]), source="a", target="b", path=str(d / "out.sl")),
     sl.FormatError, "row 20,"),
    ("build: a Parquet page whose checksum fails", lambda g, w, d: sl.build(crc_damaged(d), str(d / "out.sl")),
     sl.FormatError, "Page CRC checksum mismatch"),
    ("build: the weight column chosen as the source", lambda g, w, d: sl.build(write(d / "e.csv", b"a,b,c\n0,1,2\n"), str(d / "out.sl"), weighted=True, source_col="a", target_col="b", weight_col="a"),
     sl.FormatError, 'the source and weight columns are both column "a"'),
]


def frame(b=(1, 2, 0), index=None):
    import pandas as pd
    return pd.DataFrame({"a": ["x", "y", "z"], "b": list(b)}, index=index)


def crc_damaged(folder):
    """A Parquet file written with page checksums, one value of it changed after."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    path = folder / "crc.parquet"
    table = pa.table({"a": pa.array([0, 1, 2, 3], pa.int64()), "b": pa.array([1, 2, 3, 0], pa.int64())})
    pq.write_table(table, path, write_page_checksum=True, compression="none", use_dictionary=False)
    data = bytearray(path.read_bytes())
    at = data.find((1).to_bytes(8, "little") + (2).to_bytes(8, "little"))
    data[at + 8] = 7
    path.write_bytes(bytes(data))
    with pytest.raises(OSError, match="CRC"):
        pq.read_table(path, page_checksum_verification=True)
    return str(path)


def write(path, data):
    path.write_bytes(data)
    return str(path)


def gap_header(vertices):
    return bytes([0]) + (1).to_bytes(8, "little") + vertices.to_bytes(8, "little") + bytes(64)


def flip(path, folder):
    """A copy of the graph with one byte of its lists flipped."""
    data = bytearray(open(path, "rb").read())
    offset, _ = SlGraph(path).sections["out_neighbors"]
    data[offset + 100] ^= 1
    return write(folder / "flipped.sl", bytes(data))


@pytest.mark.parametrize("name,call,exception,phrase", CASES, ids=[case[0] for case in CASES])
def test_catalogue(graph, weighted, tmp_path, name, call, exception, phrase):
    (tmp_path / "out.sl").write_bytes(b"precious")
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(exception) as raised:
        call(graph, weighted, tmp_path)
    assert phrase in str(raised.value), str(raised.value)
    assert (tmp_path / "out.sl").read_bytes() == b"precious"
    after = sorted(name for name in os.listdir(tmp_path) if name not in ("flipped.sl", "b.el", "h.sg.gz", "t.sl", "crc.parquet", "e.csv"))
    assert [name for name in after if name.startswith(".")] == []
    assert set(after) <= set(before), after


def test_pagerank_that_stops_early_warns_and_says_so(graph):
    with pytest.warns(RuntimeWarning, match="not converged"):
        sl.pagerank(graph, max_iter=2)
    assert graph.last_report["result"]["converged"] is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sl.pagerank(graph)
    assert graph.last_report["result"]["converged"] is True


def test_python_dash_m_ends_quietly_on_a_closed_pipe(graph):
    command = f"{sys.executable} -m swapless info {graph.path} | head -1"
    result = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=False)
    assert result.stdout.startswith("graph"), result.stdout
    assert "Exception" not in result.stderr and "panicked" not in result.stderr, result.stderr


# ---- Tables and ids (issue 40) ----

def test_auto_ids_stay_dense_only_when_they_fill_half_of_the_span(tmp_path):
    import networkx as nx
    import pandas as pd
    sparse = pd.DataFrame({"source": [1000, 1001], "target": [1001, 1002]})
    g = sl.from_pandas(sparse)
    assert g.n == 3 and sorted(g.ids) == [1000, 1001, 1002]
    assert "3 distinct ids fill 0% of 0..1002, under 1/2" in g.build_report["compacted_because"]
    ranks = sl.to_pandas(sl.pagerank(g), g)
    expected = nx.pagerank(nx.from_pandas_edgelist(sparse, create_using=nx.DiGraph))
    assert set(ranks.index) == set(expected)
    assert all(abs(ranks[v] - expected[v]) < 1e-4 for v in expected)
    labels = sl.connected_components(g)
    assert len(labels) == 3 and len(set(labels)) == 1  # networkx: 3 nodes, 1 component
    filled = sl.from_pandas(pd.DataFrame({"source": [0, 3], "target": [1, 1]}))
    assert filled.n == 4 and filled.build_report["kept_dense_because"].startswith("3 distinct ids fill 75% of 0..3")
    edge_list = tmp_path / "g.el"
    edge_list.write_text("1000 1001\n1001 1002\n")
    built = sl.build(str(edge_list), str(tmp_path / "g.sl"))
    assert built.n == 3 and built.build_report["ids"] == "integers"
    table = tmp_path / "g.parquet"
    sparse.to_parquet(table)
    assert sl.build(str(table), str(tmp_path / "p.sl")).n == 3


def test_one_table_gives_one_graph_whatever_its_format(tmp_path):
    import pandas as pd
    df = pd.DataFrame({"from": [" a", "a", "b"], "to": ["b", "b", " a"]})
    by_pandas = sl.from_pandas(df, source="from", target="to")
    df.to_csv(tmp_path / "e.csv", index=False)
    df.to_parquet(tmp_path / "e.parquet")
    by_csv = sl.build(str(tmp_path / "e.csv"), str(tmp_path / "csv.sl"), source_col="from",
                      target_col="to", header=True)
    by_parquet = sl.build(str(tmp_path / "e.parquet"), str(tmp_path / "parquet.sl"))
    assert list(pd.read_csv(tmp_path / "e.csv")["from"]) == [" a", "a", "b"]
    for g in (by_pandas, by_csv, by_parquet):
        assert sorted(g.ids) == [" a", "a", "b"] and g.m == 3, (g.path, g.ids)
    # pandas reads " 5" as the integer 5, and so does a build of the CSV.
    (tmp_path / "n.csv").write_text("s,t\n 0,1\n1 , 2\n")
    numbers = pd.read_csv(tmp_path / "n.csv")
    assert numbers["s"].tolist() == [0, 1]
    assert sl.build(str(tmp_path / "n.csv"), str(tmp_path / "n.sl")).n == 3


def test_categorical_columns_build_from_pandas_and_from_parquet(tmp_path):
    import pandas as pd
    df = pd.DataFrame({"s": pd.Categorical(["x", "y", "x"]), "t": pd.Categorical(["y", "z", "z"])})
    df.to_parquet(tmp_path / "c.parquet")
    for g in (sl.from_pandas(df, source="s", target="t"),
              sl.build(str(tmp_path / "c.parquet"), str(tmp_path / "c.sl"))):
        assert sorted(g.ids) == ["x", "y", "z"] and g.m == 3


def test_build_takes_a_tables_columns_and_header(tmp_path):
    (tmp_path / "e.csv").write_text("w,to,from\n2.5,1,0\n4,2,1\n")
    g = sl.build(str(tmp_path / "e.csv"), str(tmp_path / "e.sl"), weighted=True,
                 source_col="from", target_col=1, weight_col="w", header=True)
    assert g.n == 3 and g.m == 2 and g.weighted


def test_weights_dropped_for_want_of_weighted_are_warned_of(tmp_path):
    (tmp_path / "w.el").write_text("0 1 2.5\n1 2 4\n")
    with pytest.warns(UserWarning, match="weights ignored; pass weighted=True to keep them"):
        g = sl.build(str(tmp_path / "w.el"), str(tmp_path / "w.sl"))
    assert not g.weighted
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sl.build(str(tmp_path / "w.el"), str(tmp_path / "kept.sl"), weighted=True)
