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
]


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
    after = sorted(name for name in os.listdir(tmp_path) if name not in ("flipped.sl", "b.el", "h.sg.gz", "t.sl"))
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
