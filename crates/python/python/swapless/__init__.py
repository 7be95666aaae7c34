"""swapless: graph analytics for graphs that do not fit in memory.

Give it a graph and a memory budget: it never exceeds the budget, returns the same
answers as an in-memory run, and runs as close to in-memory speed as the storage allows.

    import swapless as sl
    g = sl.generate("kron", scale=16, output="kron16.sl")
    ranks = sl.pagerank(g)                   # numpy array indexed by original vertex id
    parents = sl.bfs(g, source=0)            # parent ids, -1 for unreached
    print(g.last_report["seconds"], g.last_report["peak_rss_bytes"])

Every kernel returns results indexed by original vertex id and leaves the run's report
(times, memory, bytes read, queue depth, faults) in ``g.last_report``. A graph built
from any other ids (64-bit integers, names) keeps them: ``g.ids`` lists them in the
order of the result arrays, ``source=`` takes them, and ``sl.to_pandas(result, g)``
gives a pandas Series keyed by them. The engine runs
with the GIL released; Ctrl-C raises KeyboardInterrupt.

Builds and runs that take more than a second show a progress bar: a line on standard
error in a terminal, a bar under the cell in a Jupyter notebook, nothing elsewhere.
``progress=False`` (on ``open`` and every builder) turns it off, ``progress=True`` draws
on standard error even when it is not a terminal.

Every kernel takes ``checkpoint=FOLDER``: the run writes its state there between steps
(by default the first after 60 s and then by Young's rule, at most 5% of the run;
or ``checkpoint_every="5m"`` or a number of steps), and a later
call with the same folder resumes from the newest intact checkpoint of the same run
(``g.last_report["resumed_from_step"]``); a finished run removes them. A checkpoint of
another graph, kernel or option set raises ValueError.
"""

from __future__ import annotations

import json as _json
import os as _os
import tempfile as _tempfile
import warnings as _warnings
from typing import Any, Optional, Union

import numpy as _np

from . import _core, _progress
from ._core import BudgetError, FormatError, VerificationError
from ._pairs import common_neighbors, jaccard_coefficient
from ._tables import from_arrow, from_networkx, from_pandas, networkx_graph
from ._truss import k_truss

__version__: str = _core.__version__

__all__ = [
    "Graph",
    "open",
    "run",
    "kernels",
    "far_push",
    "build",
    "generate",
    "from_edges",
    "from_scipy",
    "from_pandas",
    "from_arrow",
    "from_networkx",
    "networkx_graph",
    "to_pandas",
    "bfs",
    "sssp",
    "pagerank",
    "connected_components",
    "strongly_connected_components",
    "closeness",
    "eigenvector_centrality",
    "katz_centrality",
    "hits",
    "average_neighbor_degree",
    "label_propagation",
    "louvain",
    "betweenness",
    "triangle_count",
    "triangles",
    "clustering",
    "radii",
    "maximal_independent_set",
    "core_number",
    "k_truss",
    "common_neighbors",
    "jaccard_coefficient",
    "FormatError",
    "BudgetError",
    "VerificationError",
]

Size = Union[str, int, None]
PathLike = Union[str, "_os.PathLike[str]"]
TIERS = (None, "dram", "mmap", "direct")


def _size(memory: Size) -> Optional[str]:
    """A memory size as the engine reads it ("1G", "512M" or a number of bytes)."""
    if memory is None:
        return None
    if isinstance(memory, bool) or not isinstance(memory, (str, int)):
        raise TypeError(f"memory must be a size like \"1G\" or a number of bytes, not {memory!r}")
    return str(memory)


class Graph:
    """A .sl graph file, with the memory budget and tier its kernels run under.

    Attributes: ``path``, ``memory`` (the budget, e.g. "1G"; None: in memory if it
    fits in half of the memory the process may use, physical or its cgroup's limit),
    ``tier`` (None, "dram", "mmap" or "direct"; a graph in far memory, opened by its
    ``redis://HOST:PORT/NAME`` address, runs on "direct"),
    ``n`` (vertices), ``m`` (edges; an undirected edge counts once), ``directed``,
    ``weighted``, ``ids`` (the input's id of each vertex, see :attr:`ids`),
    ``progress`` (whether runs show a progress bar; None: in a terminal or notebook),
    ``last_report``, the report of the last kernel run on it, and ``build_report``, the
    report of the build that made it in this process (None for a graph only opened):
    ``build_report["ids"]`` says whether its ids were kept dense or compacted, and
    ``kept_dense_because`` or ``compacted_because`` why.
    """

    def __init__(self, path: PathLike, memory: Size = None,
                 tier: Optional[str] = None, _keep: Any = None,
                 progress: Optional[bool] = None) -> None:
        if tier == "far":
            raise ValueError("tier=\"far\" is not a tier: a redis:// graph runs on the direct "
                             "tier by itself; drop tier=")
        if tier not in TIERS:
            raise ValueError(
                f"tier={tier!r} is not a tier; use \"dram\", \"mmap\", \"direct\" or None")
        self.path = _os.fspath(path)
        self.memory = _size(memory)
        _core.memory_bytes(self.memory)
        self.tier = tier
        _progress.check(progress)
        self.progress = progress
        self._info = _json.loads(_core.graph_info(self.path))
        # Where the graph comes from decides which tiers can serve it (a far graph's
        # lists are fetched by the direct tier alone).
        if tier is not None and tier not in self._info["tiers"]:
            raise ValueError(f"tier= must be {' or '.join(self._info['tiers'])} for a graph "
                             f"from {self._info['far'] or self.path} (not {tier})")
        self.n: int = self._info["vertices"]
        self.m: int = self._info["edges"]
        self.directed: bool = self._info["directed"]
        self.weighted: bool = self._info["weighted"]
        self.last_report: Optional[dict] = None
        self.build_report: Optional[dict] = None
        # A temporary directory (from_edges without a path) lives as long as the graph.
        self._keep = _keep
        self._ids: Optional[_np.ndarray] = None
        self._positions: Optional[dict] = None
        self._list_reader: Any = None

    @property
    def ids(self) -> _np.ndarray:
        """The input's id of each vertex, in the order of every result array: int64 for
        integer ids, an object array of str for names, ``arange(n)`` when the graph's
        ids are its vertices (``info()["ids"]`` says which)."""
        if self._ids is None:
            loaded = _core.vertex_ids(self.path)
            if loaded is None:
                self._ids = _np.arange(self.n, dtype=_np.int64)
            elif isinstance(loaded, list):
                self._ids = _np.array(loaded, dtype=object)
            else:
                self._ids = loaded
        return self._ids

    def degrees(self, direction: str = "out") -> _np.ndarray:
        """Each vertex's count of out-neighbors (``direction="in"``: in-neighbors; the
        same on an undirected graph), in the order of every result array (uint64). Read
        from the file's offsets, so it costs 8 bytes a vertex, whatever the budget."""
        return _core.degrees(self.path, direction)

    def neighbors(self, id: Any, direction: str = "out") -> _np.ndarray:
        """The input's ids of the vertices the vertex called ``id`` links to
        (``direction="in"``: that link to it; the same on an undirected graph), each once,
        in the order of the result arrays; a self-loop lists the vertex itself. Read from
        the file, its checksums checked: only this list is read, whatever the graph's
        size. A graph in far memory answers kernel runs only (ValueError)."""
        return self.ids[self._lists().neighbors(self.vertex(id), direction)]

    def _lists(self) -> Any:
        """The file opened to read single lists, opened on first use."""
        if self._list_reader is None:
            self._list_reader = _core.ListReader(self.path)
        return self._list_reader

    def _labels(self, labels: list) -> None:
        """Names the vertices by ``labels`` (a networkx graph's nodes), held by this
        object rather than the file."""
        integers = bool(labels) and all(
            isinstance(label, int) and not isinstance(label, bool) and -2**63 <= label < 2**63
            for label in labels)
        if integers:
            self._ids = _np.array(labels, dtype=_np.int64)
        else:
            # fromiter keeps tuples whole, where array() would unpack them.
            self._ids = _np.fromiter(labels, dtype=object, count=len(labels))
        self._positions = {label: v for v, label in enumerate(labels)}

    def _named(self) -> bool:
        """Whether the vertices have ids other than their positions."""
        return self._positions is not None or self._info["ids"] != "dense"

    def vertex(self, id: Any) -> int:
        """The position of the vertex the input called ``id`` (an integer or a name) in
        the result arrays; KeyError when no vertex has it."""
        if self._positions is None and self._info["ids"] == "names":
            self._positions = {name: v for v, name in enumerate(self.ids)}
        if self._positions is not None:
            if id in self._positions:
                return self._positions[id]
        elif not isinstance(id, bool) and isinstance(id, (int, _np.integer)):
            ids = self.ids
            at = int(_np.searchsorted(ids, id))
            if at < len(ids) and ids[at] == id:
                return at
        raise KeyError(f"no vertex of {self.path} has the id {id!r}")

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        weights = ", weighted" if self.weighted else ""
        return f"<swapless.Graph {self.path!r}: {self.n} vertices, {self.m} edges, {kind}{weights}>"

    def info(self) -> dict:
        """Vertices, edges, arcs, flags, file size, format version, how the lists are
        stored ("lists": "plain" or "compressed", with "list_bytes" and
        "list_bytes_per_arc") and section sizes."""
        return dict(self._info)

    def plan(self, kernel: str, verify: bool = False) -> dict:
        """Where each data segment of ``kernel``'s run would live under this graph's budget.

        ``verify=True`` plans a run with ``verify=True``: its serial verifier is a phase
        after the run, within the same budget (the "verification" segment).
        """
        return _json.loads(_core.plan(self.path, kernel, self.memory, self.tier, verify))

    def check(self) -> None:
        """Verifies every checksum and structural invariant; raises FormatError if one fails."""
        _core.check(self.path)

    def _run(self, kernel: str, **options: Any) -> Any:
        options.update(memory=self.memory, tier=self.tier)
        array, report = _shown(kernel, self.progress, lambda bar: _core.run(
            self.path, kernel, _json.dumps(options), bar))
        self.last_report = _json.loads(report)
        self._name_report_vertices()
        for warning in self.last_report.get("warnings", []):
            _warnings.warn(warning, RuntimeWarning, stacklevel=3)
        return array


    def _name_report_vertices(self) -> None:
        """The report's vertices (a source, sampled sources, seeds), which the engine
        gives as positions, in the graph's own ids, as its results speak them."""
        if not self._named():
            return
        report, result = self.last_report, self.last_report.get("result", {})
        if report.get("source") is not None:
            report["source"] = self.ids[[report["source"]]].tolist()[0]
        for key in ("source_ids", "seeds"):
            if isinstance(result.get(key), list):
                result[key] = self.ids[result[key]].tolist()


def _shown(title: str, progress: Optional[bool], call: Any) -> Any:
    """``call(bar)`` with the progress bar for ``title`` (or None), closed afterwards."""
    bar = _progress.bar(title, progress)
    try:
        return call(bar)
    finally:
        if bar is not None:
            bar.close()


def open(path: PathLike, memory: Size = None, tier: Optional[str] = None,
         progress: Optional[bool] = None) -> Graph:
    """Opens a .sl graph, or one stored in far memory (``"redis://HOST:PORT/NAME"``, see
    :func:`far_push`); kernels on it run within ``memory`` on ``tier``, with a progress
    bar when they take more than a second (see ``progress`` in the module's help)."""
    return Graph(path, memory=memory, tier=tier, progress=progress)


def far_push(graph: Union["Graph", PathLike], url: str, chunk: str = "252K",
             replace: bool = False, memory: Size = "64M", timeout: float = 10.0) -> dict:
    """Stores a .sl graph (a path or a :class:`Graph`) in the memory of a Redis server
    or cluster at ``url`` (``redis://HOST:PORT[,HOST:PORT...]/NAME``; the password in
    ``SWAPLESS_REDIS_PASSWORD``), in chunks of ``chunk`` bytes; returns what was sent.

    Storing the same graph again sends nothing; a different graph under the same name
    raises FileExistsError unless ``replace=True``. An unreachable node raises
    ConnectionError, refused credentials PermissionError. Open it with
    ``sl.open(url, memory=...)``.
    """
    path = graph.path if isinstance(graph, Graph) else _os.fspath(graph)
    return _json.loads(_core.far_push(path, url, chunk, replace, _size(memory) or "64M", timeout))


def _built(graph: Graph, report: str) -> Graph:
    """``graph`` with the report of the build that made it, warning of weights dropped."""
    graph.build_report = _json.loads(report)
    if graph.build_report.get("weights_ignored"):
        _warnings.warn("weights ignored; pass weighted=True to keep them", stacklevel=3)
    return graph


def build(input: PathLike, output: PathLike, memory: Size = None,
          undirected: bool = False, weighted: bool = False, reorder: Optional[str] = None,
          out_heads: str = "auto", ids: str = "auto",
          source_col: Union[str, int, None] = None, target_col: Union[str, int, None] = None,
          weight_col: Union[str, int, None] = None, header: Optional[bool] = None,
          lists: str = "plain", self_loops: str = "keep",
          progress: Optional[bool] = None) -> Graph:
    """Builds a .sl file from an edge list, a table (CSV, TSV, a Parquet file or a folder
    of Parquet parts), Matrix Market or GAP .sg/.wsg file (.gz/.zst too), or from another
    .sl file (to reorder it, drop its weights or bring it to this format).

    ``memory`` bounds the build's peak memory (default: half of the memory the process may use);
    ``reorder="dbg"`` groups vertices by degree, hottest first; ``out_heads`` ("auto",
    "always" or "never") whether to write each vertex's first two out-neighbors apart, which
    the disk tiers read for cc's first pass instead of the lists ("auto": when the lists
    average 8 entries or more). ``ids`` says what a text input's ids are: "dense" (the
    vertices 0..max id), "compact" (any 64-bit integers or names, mapped to 0..n and kept
    in the file, see :attr:`Graph.ids`), or "auto" (dense when the distinct integer ids
    fill at least half of 0..max id, else compact; ``g.build_report`` says which and why).
    A table's columns are ``source_col``, ``target_col`` and ``weight_col`` (read with
    ``weighted``): header names, or positions from 0 (default: the first three);
    ``header`` says whether a CSV's first row names them (None: found by itself).
    ``lists`` is how the file stores its neighbor lists: "plain" (4 bytes an id, format
    v2, read by every swapless) or "compressed" (delta-coded in pages that each decode
    alone, format v4: about half the bytes on kron graphs, so half the reading when the
    graph does not fit in memory); a compressed build writes the lists plain first among
    its temporaries, then rewrites them. ``g.build_report`` gives ``lists`` and
    ``list_bytes_per_arc``. A compressed .sl input builds back to plain. Returns
    the new graph (open it again with ``sl.open(output, memory=...)`` to run within a
    budget). An input's weights dropped for want of ``weighted=True`` are warned of.
    ``self_loops`` says what becomes of an edge from a vertex to itself: "keep" (once
    per vertex, as networkx holds it: PageRank and the other walks count it, paths,
    triangles and cores leave it out) or "drop" (the command line's default, and what
    GAP's kernels assume); ``g.info()["self_loops"]`` counts those kept.
    """
    report = _shown(f"building {_os.fspath(output)}", progress, lambda bar: _core.build(
        _os.fspath(input), _os.fspath(output), _size(memory), undirected, weighted, reorder,
        out_heads, ids, source_col, target_col, weight_col, header, lists, self_loops,
        progress=bar))
    return _built(Graph(output, progress=progress), report)


def generate(kind: str, scale: Optional[int] = None, degree: int = 16,
             rows: Optional[int] = None, cols: Optional[int] = None,
             output: Optional[PathLike] = None, weighted: bool = False,
             seed: Optional[int] = None, memory: Size = None,
             reorder: Optional[str] = None, out_heads: str = "auto",
             lists: str = "plain", self_loops: str = "drop",
             progress: Optional[bool] = None) -> Graph:
    """Generates a synthetic graph with GAP's definitions straight into a .sl file.

    ``kind`` is "kron" or "urand" (2^scale vertices, degree x 2^scale edges, undirected)
    or "grid" (rows x cols mesh with a few shortcuts). ``output`` defaults to a name
    after the generator in the current directory. ``memory``, ``reorder``, ``out_heads``,
    ``lists`` and ``self_loops`` as for :func:`build`, but self-loops are dropped unless
    kept, as GAP's generators drop them.
    """
    if output is None:
        output = f"{kind}{scale}.sl" if kind != "grid" else f"grid{rows}x{cols}.sl"
    report = _shown(f"generating {_os.fspath(output)}", progress, lambda bar: _core.generate(
        kind, _os.fspath(output), scale, degree, rows, cols, weighted, seed, _size(memory),
        reorder, out_heads, lists, self_loops, progress=bar))
    return _built(Graph(output, progress=progress), report)


def _vertex_ids(values: Any, name: str) -> _np.ndarray:
    array = _np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, not of shape {array.shape}")
    if array.size and not _np.issubdtype(array.dtype, _np.integer):
        raise TypeError(f"{name} must hold integer vertex ids, not {array.dtype}")
    if array.size and (array.min() < 0 or array.max() > 2**32 - 2):
        raise ValueError(f"{name} holds ids outside 0..{2**32 - 2}")
    return _np.ascontiguousarray(array, dtype=_np.uint32)


def from_edges(src: Any, dst: Any, weights: Any = None, directed: bool = True,
               path: Optional[PathLike] = None, num_vertices: Optional[int] = None,
               memory: Size = None, tier: Optional[str] = None,
               progress: Optional[bool] = None, self_loops: str = "keep") -> Graph:
    """Writes the edges ``src[i] -> dst[i]`` (with ``weights[i]``) to a .sl file and opens it.

    With ``path=None`` the file is temporary and removed when the graph is garbage
    collected. Vertices are ``0..max id`` unless ``num_vertices`` says more. Duplicate
    edges are dropped (the least weight kept); self-loops are kept unless
    ``self_loops="drop"`` (see :func:`build`).
    """
    sources = _vertex_ids(src, "src")
    destinations = _vertex_ids(dst, "dst")
    weight_array = None
    if weights is not None:
        # float64 here; the engine checks each weight as it checks a text file's.
        weight_array = _np.ascontiguousarray(_np.asarray(weights, dtype=_np.float64))
        if weight_array.ndim != 1:
            raise ValueError("weights must be one-dimensional")
    keep = None
    if path is None:
        keep = _tempfile.TemporaryDirectory(prefix="swapless-")
        path = _os.path.join(keep.name, "graph.sl")
    report = _shown(f"writing {_os.fspath(path)}", progress, lambda bar: _core.from_edges(
        sources, destinations, weight_array, directed, _os.fspath(path), num_vertices,
        _size(memory), None, self_loops, progress=bar))
    return _built(Graph(path, memory=memory, tier=tier, _keep=keep, progress=progress), report)


def from_scipy(matrix: Any, directed: bool = True, weighted: Optional[bool] = None,
               path: Optional[PathLike] = None, memory: Size = None,
               tier: Optional[str] = None, progress: Optional[bool] = None,
               self_loops: str = "keep") -> Graph:
    """A graph from a scipy sparse matrix: entry (i, j) is the edge i -> j (a diagonal
    entry a self-loop, kept unless ``self_loops="drop"``).

    ``weighted`` defaults to whether any stored value differs from 1.
    """
    coo = matrix.tocoo()
    if coo.shape[0] != coo.shape[1]:
        raise ValueError(f"an adjacency matrix is square, not of shape {coo.shape}")
    data = _np.asarray(coo.data)
    if weighted is None:
        weighted = bool(data.size) and not _np.all(data == 1)
    return from_edges(coo.row, coo.col, data if weighted else None, directed=directed,
                      path=path, num_vertices=coo.shape[0], memory=memory, tier=tier,
                      progress=progress, self_loops=self_loops)


def _integer(value: Any, name: str, low: int, high: int, none: bool = False) -> Optional[int]:
    """An integer option in ``low..=high`` (None passes when ``none``)."""
    if value is None and none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, _np.integer)):
        raise TypeError(f"{name} must be an integer, not {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high}, not {value}")
    return int(value)


def _number(value: Any, name: str, low: float, high: float, open_low: bool = False,
            none: bool = False) -> Optional[float]:
    """A finite number option in ``low..=high`` (above ``low`` when ``open_low``)."""
    if value is None and none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, _np.integer, _np.floating)):
        raise TypeError(f"{name} must be a number, not {value!r}")
    value = float(value)
    if not _np.isfinite(value) or value < low or value > high or (open_low and value == low):
        bound = f"above {low}" if open_low else f"at least {low}"
        raise ValueError(f"{name} must be a finite number {bound} and at most {high}, not {value}")
    return value


def _checkpointing(checkpoint: Optional[PathLike], every: Union[str, int]) -> dict:
    """The run options that write checkpoints to ``checkpoint`` (a folder) and resume
    from the newest intact one there, if any."""
    if checkpoint is None:
        return {}
    if isinstance(every, bool) or not isinstance(every, (str, int)):
        raise TypeError(f"checkpoint_every must be \"auto\", a time like \"90s\" or a number "
                        f"of steps, not {every!r}")
    return {"checkpoint": _os.fspath(checkpoint), "checkpoint_every": str(every)}


def _threads(threads: Optional[int]) -> Optional[int]:
    return _integer(threads, "threads", 1, 2**16, none=True)


def _source(g: Graph, source: Any, keyword: str = "source") -> Optional[int]:
    """The position of the vertex the user named by its id, given as ``keyword``."""
    if source is None:
        return None
    if g._named():
        return g.vertex(source)
    if isinstance(source, bool) or not isinstance(source, (int, _np.integer)) or source < 0:
        raise ValueError(f"{keyword} must be a vertex id (a non-negative integer), not {source!r}")
    return int(source)


def to_pandas(result: _np.ndarray, g: Graph, kernel: Optional[str] = None) -> Any:
    """``result`` of ``kernel`` on ``g`` as a pandas Series indexed by the input's ids
    (``g.ids``, the index named "id"), named after what it holds ("parent", "score",
    ...). Values that are vertices (a BFS parent, a component's representative) become
    ids too, and an unreached vertex's parent is missing (``pd.NA``, or None among
    names). A result that is edges (``k_truss``'s) becomes a DataFrame of their ends'
    ids, the columns ``source`` and ``target``. ``kernel``
    defaults to the last kernel run on ``g``."""
    import pandas as pd

    kernel = kernel or (g.last_report or {}).get("kernel")
    if kernel is None:
        raise ValueError("name the kernel that computed the result: no kernel has run on this graph")
    if kernels().get(kernel, {}).get("returns_edges"):
        from ._truss import edges_to_pandas

        return edges_to_pandas(result, g)
    name, vertices = _core.kernel_column(kernel)
    values = _np.asarray(result)
    if values.shape != (g.n,):
        raise ValueError(f"a result of {kernel} on this graph has {g.n} values, not shape {values.shape}")
    index = pd.Index(g.ids, name="id")
    if not vertices:
        return pd.Series(values, index=index, name=name)
    reached = values >= 0
    if g.ids.dtype == object:
        mapped = _np.full(g.n, None, dtype=object)
        mapped[reached] = g.ids[values[reached]]
        return pd.Series(mapped, index=index, name=name, dtype=object)
    mapped = pd.array(_np.where(reached, g.ids[_np.where(reached, values, 0)], 0), dtype="Int64")
    mapped[~reached] = pd.NA
    return pd.Series(mapped, index=index, name=name)


Every = Union[str, int]


def bfs(g: Graph, source: Any = None, *, threads: Optional[int] = None,
        verify: bool = False, checkpoint: Optional[PathLike] = None,
        checkpoint_every: Every = "auto") -> _np.ndarray:
    """Breadth-first search (direction-optimizing): int64 parent per vertex, the source
    its own parent, -1 unreached (parents are positions in ``g.ids``; ``to_pandas`` gives
    them as ids). ``source`` is an id of the input; None picks a vertex with edges
    reproducibly."""
    return g._run("bfs", source=_source(g, source), threads=_threads(threads), verify=verify,
                  **_checkpointing(checkpoint, checkpoint_every))


def sssp(g: Graph, source: Any = None, delta: Optional[float] = None, *,
         threads: Optional[int] = None, verify: bool = False,
         checkpoint: Optional[PathLike] = None, checkpoint_every: Every = "auto") -> _np.ndarray:
    """Single-source shortest paths by delta-stepping: float64 distance, +inf unreached.
    Unweighted graphs use weight 1; ``delta`` is the bucket width (default 1)."""
    delta = _number(delta, "delta", 0.0, 1e308, open_low=True, none=True)
    return g._run("sssp", source=_source(g, source), delta=delta, threads=_threads(threads),
                  verify=verify, **_checkpointing(checkpoint, checkpoint_every))


def pagerank(g: Graph, alpha: float = 0.85, tol: float = 1e-4, max_iter: int = 100, *,
             method: str = "power", personalization: Any = None, nstart: Any = None,
             dangling: Any = None, weighted: bool = False, threads: Optional[int] = None,
             verify: bool = False, checkpoint: Optional[PathLike] = None,
             checkpoint_every: Every = "auto") -> _np.ndarray:
    """PageRank (pull; dangling mass spread uniformly, as networkx): float64 scores summing
    to 1. Stops when the L1 change falls below ``tol`` or after ``max_iter`` iterations
    (then with a RuntimeWarning; ``g.last_report["result"]["converged"]`` says which).
    ``method`` is "power" (networkx's power iteration; the same scores for any thread
    count) or "gauss-seidel" (GAP's; fewer iterations, scores vary with thread timing
    within the tolerance).

    Scores are computed as float32, as GAP keeps them (each exact to about 1e-7
    relative; a ``tol`` below that is met once they stop changing), unless the call asks
    for more: ``personalization`` (where the surfer jumps), ``dangling`` (where the rank
    of vertices without out-edges goes), ``nstart`` (the first scores), each a dict of
    weights by vertex id (or a pandas Series indexed by id) or an array of one per vertex
    in the order of ``g.ids``, scaled to sum 1 as networkx scales them, or ``weighted``
    (follow edges by weight). Those runs
    keep float64 scores (kernels ``pr64`` and ``wpr64``), by power iteration only;
    ``sl.run(g, "pr64", tol=...)`` keeps float64 scores for any call (its ``tol`` is per
    vertex, as networkx's).

    ``tol`` bounds the L1 change of all the scores together; networkx's ``tol`` is per
    vertex (networkx stops below ``n * tol``)."""
    alpha = _number(alpha, "alpha", 0.0, 1.0)
    tol = _number(tol, "tol", 0.0, 1e308)
    max_iter = _integer(max_iter, "max_iter", 1, 2**32 - 1)
    vectors = {keyword: _vertex_weights(g, value, keyword) for keyword, value in
               (("personalization", personalization), ("dangling", dangling), ("nstart", nstart))
               if value is not None}
    checkpointing = _checkpointing(checkpoint, checkpoint_every)
    if not (vectors or weighted):
        return g._run("pr", alpha=alpha, tol=tol, max_iter=max_iter, method=method,
                      threads=_threads(threads), verify=verify, **checkpointing)
    if method != "power":
        raise ValueError(f"method={method!r} keeps float32 scores; personalization, dangling, "
                         "nstart and weighted take method=\"power\"")
    kernel = "wpr64" if weighted else "pr64"
    return g._run(kernel, alpha=alpha, tol=tol / max(g.n, 1), max_iter=max_iter, **vectors,
                  threads=_threads(threads), verify=verify, **checkpointing)


def _vertex_weights(g: Graph, weights: Any, keyword: str) -> list:
    """``weights`` (a dict or pandas Series by vertex id, or one per vertex in the order
    of ``g.ids``) as the engine takes them: ``[position, weight]`` pairs, those of weight
    0 left out."""
    if isinstance(weights, dict) or type(weights).__name__ == "Series":
        pairs = [(_source(g, id, keyword), weight) for id, weight in weights.items()]
    else:
        values = _np.asarray(weights)
        if values.shape != (g.n,):
            raise ValueError(f"{keyword} must be a dict of weights by vertex id or one weight "
                             f"per vertex ({g.n}), not an array of shape {values.shape}")
        pairs = list(enumerate(values.tolist()))
    checked = [[position, _number(weight, f"{keyword}'s weight", 0.0, 1e308)]
               for position, weight in pairs]
    given = [pair for pair in checked if pair[1] > 0]
    if not given:
        raise ValueError(f"{keyword}'s weights are all 0: give at least one vertex a weight "
                         "above 0")
    return given


def connected_components(g: Graph, *, threads: Optional[int] = None, verify: bool = False,
                         checkpoint: Optional[PathLike] = None,
                         checkpoint_every: Every = "auto") -> _np.ndarray:
    """Connected components (weak, for directed graphs): int64 label per vertex, equal iff
    the vertices share a component."""
    return g._run("cc", threads=_threads(threads), verify=verify,
                  **_checkpointing(checkpoint, checkpoint_every))


def strongly_connected_components(g: Graph, *, threads: Optional[int] = None,
                                  verify: bool = False, checkpoint: Optional[PathLike] = None,
                                  checkpoint_every: Every = "auto") -> _np.ndarray:
    """Strongly connected components: int64 label per vertex, equal iff each vertex
    reaches the other (the connected components on an undirected graph)."""
    return g._run("scc", threads=_threads(threads), verify=verify,
                  **_checkpointing(checkpoint, checkpoint_every))


def betweenness(g: Graph, sources: Union[int, str, Any] = 1, weighted: bool = False,
                delta: Optional[float] = None, *, threads: Optional[int] = None,
                verify: bool = False, checkpoint: Optional[PathLike] = None,
                checkpoint_every: Every = "auto") -> _np.ndarray:
    """Brandes betweenness from ``sources``: a count of sampled sources, "all" (exact),
    or the sources themselves, by the input's ids (a list or array): float64 per vertex,
    normalized by the maximum. ``weighted``: over shortest paths by edge weight (weights
    must be positive where they lie on a shortest path), each search delta-stepping
    with bucket width ``delta`` (default 1)."""
    kernel = "wbc" if weighted else "bc"
    if not weighted and delta is not None:
        raise ValueError("delta is the width of a search by weight: give weighted=True")
    options = {"delta": _number(delta, "delta", 0.0, 1e308, open_low=True, none=True)
               } if weighted else {}
    if not isinstance(sources, (str, bytes, int, _np.integer)) and hasattr(sources, "__iter__"):
        chosen = [_source(g, id, "sources") for id in sources]
        if not chosen:
            raise ValueError("sources must name at least one vertex")
        return g._run(kernel, source_ids=chosen, threads=_threads(threads), verify=verify,
                      **options, **_checkpointing(checkpoint, checkpoint_every))
    if isinstance(sources, _np.integer):
        sources = int(sources)
    if sources != "all" and (isinstance(sources, bool) or not isinstance(sources, int) or sources < 1):
        raise ValueError(f"sources must be a positive integer, \"all\" or a list of vertex ids, "
                         f"not {sources!r}")
    return g._run(kernel, sources=sources, threads=_threads(threads), verify=verify, **options,
                  **_checkpointing(checkpoint, checkpoint_every))


def triangle_count(g: Graph, *, threads: Optional[int] = None, verify: bool = False,
                   checkpoint: Optional[PathLike] = None, checkpoint_every: Every = "auto") -> int:
    """Triangles of the undirected view."""
    g._run("tc", threads=_threads(threads), verify=verify,
           **_checkpointing(checkpoint, checkpoint_every))
    return int(g.last_report["result"]["triangles"])


def triangles(g: Graph, *, threads: Optional[int] = None, verify: bool = False,
              checkpoint: Optional[PathLike] = None, checkpoint_every: Every = "auto") -> _np.ndarray:
    """Triangles through each vertex of the undirected view: int64 per vertex (their
    total over three, the number of triangles, is ``g.last_report["result"]["triangles"]``)."""
    return g._run("triangles", threads=_threads(threads), verify=verify,
                  **_checkpointing(checkpoint, checkpoint_every))


def clustering(g: Graph, weighted: bool = False, *, threads: Optional[int] = None,
               verify: bool = False, checkpoint: Optional[PathLike] = None,
               checkpoint_every: Every = "auto") -> _np.ndarray:
    """Local clustering coefficients, networkx's ``clustering``: float64 per vertex; on a
    directed graph Fagiolo's directed coefficient, as networkx's. With ``weighted``,
    networkx's ``clustering(G, weight=...)``: each triangle weighs the geometric mean of
    its edge weights, each divided by the largest (0 everywhere when every weight is 0,
    where networkx divides by zero). Their mean, networkx's ``average_clustering``, is
    ``g.last_report["result"]["average_clustering"]``."""
    return g._run("wclustering" if weighted else "clustering", threads=_threads(threads),
                  verify=verify, **_checkpointing(checkpoint, checkpoint_every))


def radii(g: Graph, *, threads: Optional[int] = None, verify: bool = False,
          checkpoint: Optional[PathLike] = None, checkpoint_every: Every = "auto") -> _np.ndarray:
    """Eccentricity estimates from a multi-source BFS of up to 64 sampled sources:
    int64 per vertex, -1 unreached."""
    return g._run("radii", threads=_threads(threads), verify=verify,
                  **_checkpointing(checkpoint, checkpoint_every))


def closeness(g: Graph, measure: str = "closeness", weighted: bool = False, *,
              threads: Optional[int] = None, verify: bool = False,
              checkpoint: Optional[PathLike] = None,
              checkpoint_every: Every = "auto") -> _np.ndarray:
    """Exact closeness from a search from every vertex: float64 per vertex. ``measure``
    is "closeness" (scaled by the share of vertices that reach it, as networkx's
    default), "closeness-unscaled", "harmonic" (the sum of 1/distance to it) or
    "eccentricity" (the distance from it to the farthest vertex it reaches). Distances
    are hops (a BFS from 64 vertices at once), or with ``weighted`` the sums of the edge
    weights along shortest paths (delta-stepping from each vertex). The report's
    ``strongly_connected`` says whether every vertex reaches every other."""
    return g._run("wcloseness" if weighted else "closeness", threads=_threads(threads),
                  verify=verify, measure=measure, **_checkpointing(checkpoint, checkpoint_every))


def eigenvector_centrality(g: Graph, tol: float = 1e-6, max_iter: int = 100, *,
                           threads: Optional[int] = None, verify: bool = False,
                           checkpoint: Optional[PathLike] = None,
                           checkpoint_every: Every = "auto") -> _np.ndarray:
    """Eigenvector centrality, as networkx's ``eigenvector_centrality``: float64 per
    vertex, of unit Euclidean norm, by power iteration of A + I (each vertex sums its
    in-neighbors'). Stops when an iteration changes the scores by less than
    ``tol`` times the vertex count (L1, networkx's rule) or after ``max_iter`` iterations
    (then with a RuntimeWarning; ``g.last_report["result"]["converged"]`` says which)."""
    tol = _number(tol, "tol", 0.0, 1e308)
    max_iter = _integer(max_iter, "max_iter", 1, 2**32 - 1)
    return g._run("eigenvector", tol=tol, max_iter=max_iter, threads=_threads(threads),
                  verify=verify, **_checkpointing(checkpoint, checkpoint_every))


def katz_centrality(g: Graph, alpha: float = 0.1, beta: float = 1.0, tol: float = 1e-6,
                    max_iter: int = 1000, normalized: bool = True, *,
                    threads: Optional[int] = None, verify: bool = False,
                    checkpoint: Optional[PathLike] = None,
                    checkpoint_every: Every = "auto") -> _np.ndarray:
    """Katz centrality, as networkx's ``katz_centrality``: float64 per vertex, the sum of
    the walks that end at it, a walk of k steps weighted ``alpha``**k, plus ``beta``;
    scaled to unit Euclidean norm when ``normalized``. Stops as
    :func:`eigenvector_centrality` does. The series converges only for ``alpha`` below
    one over the adjacency matrix's largest eigenvalue; a run whose values overflow stops
    with a RuntimeWarning."""
    alpha = _number(alpha, "alpha", 0.0, 1e308)
    beta = _number(beta, "beta", -1e308, 1e308)
    tol = _number(tol, "tol", 0.0, 1e308)
    max_iter = _integer(max_iter, "max_iter", 1, 2**32 - 1)
    return g._run("katz", alpha=alpha, beta=beta, tol=tol, max_iter=max_iter,
                  normalized="yes" if normalized else "no", threads=_threads(threads),
                  verify=verify, **_checkpointing(checkpoint, checkpoint_every))


def hits(g: Graph, tol: float = 1e-8, max_iter: int = 100, scores: Optional[str] = None, *,
         threads: Optional[int] = None, verify: bool = False,
         checkpoint: Optional[PathLike] = None, checkpoint_every: Every = "auto") -> Any:
    """HITS, as networkx's ``hits``: ``(hubs, authorities)``, two float64 arrays each
    summing to 1, or only the one ``scores`` names ("hubs" or "authorities"), which runs
    half as long. A power iteration of AᵀA, stopping when an iteration changes the
    authorities (scaled to a largest of 1) by less than ``tol`` (L1) or after
    ``max_iter`` iterations (then with a RuntimeWarning)."""
    tol = _number(tol, "tol", 0.0, 1e308)
    max_iter = _integer(max_iter, "max_iter", 1, 2**32 - 1)
    if scores not in (None, "hubs", "authorities"):
        raise ValueError(f'scores must be "hubs", "authorities" or None, not {scores!r}')
    one = lambda which: g._run("hits", tol=tol, max_iter=max_iter, scores=which,  # noqa: E731
                               threads=_threads(threads), verify=verify,
                               **_checkpointing(checkpoint, checkpoint_every))
    if scores is not None:
        return one(scores)
    if checkpoint is not None:
        raise ValueError("a checkpoint holds one run: give scores=\"hubs\" or "
                         "\"authorities\" with checkpoint=")
    return one("hubs"), one("authorities")


def average_neighbor_degree(g: Graph, source: str = "out", target: str = "out",
                            weighted: bool = False, *, threads: Optional[int] = None,
                            verify: bool = False, checkpoint: Optional[PathLike] = None,
                            checkpoint_every: Every = "auto") -> _np.ndarray:
    """The average degree of each vertex's neighbors, as networkx's
    ``average_neighbor_degree``: float64 per vertex, over its ``source`` ("out", "in" or
    "in+out") neighbors of their ``target`` degree, divided by its own ``source`` degree
    (0 where that is 0); exact. ``weighted`` weighs each neighbor's degree by the edge's
    weight and divides by the weighted degree, as networkx with ``weight=``. A self-loop
    counts once in a degree: networkx counts it twice on an undirected graph, so there
    the answers differ (build with ``self_loops="drop"`` to leave them out)."""
    kernel = "wneighbor-degree" if weighted else "neighbor-degree"
    return g._run(kernel, neighbors=source, degree=target,
                  threads=_threads(threads), verify=verify,
                  **_checkpointing(checkpoint, checkpoint_every))


def label_propagation(g: Graph, *, threads: Optional[int] = None, verify: bool = False,
                      checkpoint: Optional[PathLike] = None,
                      checkpoint_every: Every = "auto") -> _np.ndarray:
    """Label propagation communities, as networkx's ``label_propagation_communities``
    (semi-synchronous, deterministic; undirected graphs): int64 label per vertex, the
    id of a vertex of its community, equal iff two vertices share one. A self-loop counts
    once in the degree that orders the coloring, where networkx counts it twice, so on a
    graph with self-loops the communities may differ from networkx's."""
    return g._run("lpa", threads=_threads(threads), verify=verify,
                  **_checkpointing(checkpoint, checkpoint_every))


def louvain(g: Graph, resolution: float = 1.0, threshold: float = 1e-7,
            max_level: Optional[int] = None, weighted: bool = False, *,
            threads: Optional[int] = None, verify: bool = False,
            checkpoint: Optional[PathLike] = None,
            checkpoint_every: Every = "auto") -> _np.ndarray:
    """Louvain communities, as networkx's ``louvain_communities`` defines them: int64
    label per vertex, the id of a vertex of its community, equal iff two vertices share
    one (``g.last_report["result"]["modularity"]`` gives the partition's modularity).
    ``resolution`` above 1 favors smaller communities; a level that raises the modularity
    by no more than ``threshold`` is the last; ``max_level`` caps the levels (None: no
    cap). ``weighted`` reads edge weights. Nodes are visited in order, not at random as
    networkx visits them: the answer is the same on every run, and networkx's (any seed)
    differs from it but not in quality."""
    if max_level is not None and (isinstance(max_level, bool) or not isinstance(max_level, int)
                                  or max_level < 1):
        raise ValueError(f"max_level must be a positive integer or None, not {max_level!r}")
    for name, value in (("resolution", resolution), ("threshold", threshold)):
        if isinstance(value, bool) or not isinstance(value, (int, float, _np.integer, _np.floating)) \
                or not _np.isfinite(value) or (name == "resolution" and value < 0):
            raise ValueError(f"{name} must be a finite number{' >= 0' if name == 'resolution' else ''}, "
                             f"not {value!r}")
    return g._run("wlouvain" if weighted else "louvain", resolution=resolution,
                  threshold=threshold, max_level="all" if max_level is None else max_level,
                  threads=_threads(threads), verify=verify,
                  **_checkpointing(checkpoint, checkpoint_every))


def maximal_independent_set(g: Graph, *, threads: Optional[int] = None, verify: bool = False,
                            checkpoint: Optional[PathLike] = None,
                            checkpoint_every: Every = "auto") -> _np.ndarray:
    """A maximal independent set: int8 membership (1 in the set) per vertex."""
    return g._run("mis", threads=_threads(threads), verify=verify,
                  **_checkpointing(checkpoint, checkpoint_every))


def core_number(g: Graph, *, threads: Optional[int] = None, verify: bool = False,
                checkpoint: Optional[PathLike] = None, checkpoint_every: Every = "auto") -> _np.ndarray:
    """Core numbers (k-core decomposition) on the undirected view: int64 per vertex, the
    largest k such that the vertex is in a subgraph where every degree is at least k. A
    directed graph's degree counts in- and out-arcs, as networkx's ``core_number``."""
    return g._run("kcore", threads=_threads(threads), verify=verify,
                  **_checkpointing(checkpoint, checkpoint_every))


def kernels() -> dict:
    """Every kernel by name: ``about`` (what it computes), ``takes_source``,
    ``returns_a_number``, ``returns_edges`` (rows of two vertices, as ``k_truss``'s), and
    ``parameters``, the keywords :func:`run` takes for it, each with ``help``, ``kind``,
    ``must_be`` and ``default`` (None: it must be given)."""
    return {kernel["name"]: kernel for kernel in _json.loads(_core.kernels())}


def run(g: Graph, kernel: str, source: Any = None, *, threads: Optional[int] = None,
        verify: bool = False, checkpoint: Optional[PathLike] = None,
        checkpoint_every: Every = "auto", **parameters: Any) -> Any:
    """Runs any kernel by name (see :func:`kernels`) with its parameters as keywords:
    the result array in the order of ``g.ids`` (for one that returns a number, such as
    ``tc``, the report's figures, a dict; for one that returns edges, an (edges, 2) array).
    Parameters that are vertices take the input's ids, as ``source`` does; those that
    weigh vertices (pr64's ``personalization``) take a dict of weights by id or one
    weight per vertex."""
    known = kernels()
    if kernel not in known:
        raise ValueError(f"{kernel!r} is not a kernel; the kernels are {', '.join(known)}")
    declared = {p["keyword"]: p for p in known[kernel]["parameters"]}
    for keyword, value in parameters.items():
        if keyword not in declared:
            raise TypeError(f"{kernel} takes no {keyword}=; it takes "
                            f"{', '.join(declared) or 'no parameters'}")
        if declared[keyword]["kind"] == "vertices" and value is not None:
            ids = value if isinstance(value, (list, tuple, set, _np.ndarray)) else [value]
            parameters[keyword] = [_source(g, id, keyword) for id in ids]
        if declared[keyword]["kind"] == "vertex weights" and value is not None:
            parameters[keyword] = _vertex_weights(g, value, keyword)
    if source is not None and not known[kernel]["takes_source"]:
        raise ValueError(f"{kernel} takes no source=")
    array = g._run(kernel, source=_source(g, source), threads=_threads(threads), verify=verify,
                   **parameters, **_checkpointing(checkpoint, checkpoint_every))
    if known[kernel]["returns_a_number"]:
        return g.last_report["result"]
    return array
