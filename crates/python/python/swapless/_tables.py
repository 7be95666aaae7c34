"""Graphs from what people hold in memory: pandas DataFrames, Arrow tables and
datasets, networkx graphs; and a .sl graph as networkx's functions take it.

A table goes to the builder as a Parquet file of just its edge columns, written a
batch at a time and uncompressed: the build then keeps to its memory budget and
compacts any ids (64-bit integers, strings) as it does for a file. Small dense integer
ids skip the file and go straight to the builder as arrays.
"""

from __future__ import annotations

import os as _os
import re as _re
import tempfile as _tempfile
from typing import Any, Optional, Union

import numpy as _np

from . import _core

# Rows a Parquet row group holds when a table is handed to the builder.
_ROW_GROUP_ROWS = 1 << 20
# The ids of an ``ids="auto"`` build stay the vertices when the distinct ids are at
# least 1/_FILL_DENOMINATOR of 0..max id (the builder's own threshold).
_FILL_DENOMINATOR = 2


def _graph_path(path: Any) -> tuple:
    """Where a new graph goes: ``path``, or a temporary folder kept with the graph."""
    if path is not None:
        return _os.fspath(path), None
    keep = _tempfile.TemporaryDirectory(prefix="swapless-")
    return _os.path.join(keep.name, "graph.sl"), keep


def _in_callers_terms(error: Exception, parquet: str, what: str, index: Any) -> Exception:
    """The builder's ``error`` about the Parquet file it was handed, said of the
    caller's ``what`` ("the DataFrame"): no temporary file's name, and a row by the
    caller's index (from 0 by default) instead of the file's count from 1."""
    message = str(error).replace(parquet, what)

    def row(found: Any) -> str:
        position = int(found.group(1)) - 1
        if index is None or not 0 <= position < len(index):
            return f"row {position}"
        label = index[position]
        # A numpy scalar as the Python value it holds: row 20, not np.int64(20).
        return f"row {getattr(label, 'item', lambda: label)()!r}"

    return type(error)(_re.sub(r"\brow (\d+)", row, message))


def _build_from_table(write_parquet: Any, columns: list, weighted: bool, directed: bool,
                      path: Any, memory: Any, tier: Optional[str], ids: str,
                      progress: Optional[bool], what: str, index: Any = None,
                      self_loops: str = "keep") -> Any:
    """Writes the edge columns with ``write_parquet(file)`` and builds a graph from them;
    errors speak of ``what`` and its rows by ``index`` (see :func:`_in_callers_terms`)."""
    from . import Graph, _built, _shown, _size

    output, keep = _graph_path(path)
    with _tempfile.TemporaryDirectory(prefix="swapless-table-",
                                      dir=_os.path.dirname(_os.path.abspath(output))) as scratch:
        parquet = _os.path.join(scratch, "edges.parquet")
        write_parquet(parquet)
        try:
            report = _shown("building the graph", progress, lambda bar: _core.build(
                parquet, output, _size(memory), not directed, weighted, None, "auto", ids,
                columns[0], columns[1], columns[2] if weighted else None, None, "plain",
                self_loops, progress=bar))
        except (_core.FormatError, ValueError) as error:
            raise _in_callers_terms(error, parquet, what, index) from None
    return _built(Graph(output, memory=memory, tier=tier, _keep=keep, progress=progress), report)


def _dense_fill(sources: _np.ndarray, targets: _np.ndarray) -> Optional[str]:
    """Why integer ids can be the vertices themselves, as a build's ``ids="auto"``
    decides (in 0..2^32-2, the distinct ones at least half of 0..max id), or None."""
    if not (_np.issubdtype(sources.dtype, _np.integer) and _np.issubdtype(targets.dtype, _np.integer)):
        return None
    if sources.size == 0:
        return "no edges"
    low = int(min(sources.min(), targets.min()))
    high = int(max(sources.max(), targets.max()))
    span = high + 1
    # Each row names two ids at most: too few rows cannot fill the span.
    if low < 0 or high > 2**32 - 2 or _FILL_DENOMINATOR * 2 * sources.size < span:
        return None
    # At most four bytes a row (the span is at most four times the rows).
    seen = _np.zeros(span, dtype=bool)
    seen[sources] = True
    seen[targets] = True
    distinct = int(seen.sum())
    if _FILL_DENOMINATOR * distinct < span:
        return None
    return (f"{distinct} distinct ids fill {100 * distinct / span:.0f}% of 0..{high}, "
            f"at least 1/{_FILL_DENOMINATOR}")


def _arrow_column(values: Any, name: Any) -> Any:
    """``values`` (a pandas column) as an Arrow array; TypeError naming the column when
    they are of no one type (integers mixed with strings)."""
    import pyarrow as pa

    try:
        return pa.array(values, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        raise TypeError(f"column {name!r} mixes values of different types (integers and "
                        f"strings?); give it one, e.g. df[{name!r}].astype(str)") from None


def from_pandas(df: Any, source: Union[str, int] = "source", target: Union[str, int] = "target",
                weight: Union[str, int, None] = None, directed: bool = True,
                path: Any = None, memory: Any = None, tier: Optional[str] = None,
                ids: str = "auto", progress: Optional[bool] = None,
                self_loops: str = "keep") -> Any:
    """A graph from the edges in DataFrame ``df``: one row an edge, from column
    ``source`` to column ``target`` (names, or positions from 0), with ``weight``'s
    values when given. Ids may be any integers or strings; results speak them again
    (``g.ids``, ``sl.to_pandas``). With ``path=None`` the file is temporary. The build
    keeps to ``memory``, beside the DataFrame the caller already holds. A row from a
    vertex to itself is a self-loop, kept unless ``self_loops="drop"`` (see
    :func:`swapless.build`)."""
    names = [df.columns[c] if isinstance(c, int) else c for c in (source, target, weight)
             if c is not None]
    missing = [name for name in names if name not in df.columns]
    if missing:
        raise KeyError(f"the DataFrame has no column {missing[0]!r}; its columns are {list(df.columns)}")
    sources = df[names[0]].to_numpy()
    targets = df[names[1]].to_numpy()
    dense_because = _dense_fill(sources, targets) if ids != "compact" else None
    if dense_because is not None:
        from . import from_edges
        weights = df[names[2]].to_numpy() if weight is not None else None
        g = from_edges(sources, targets, weights, directed=directed, path=path,
                       memory=memory, tier=tier, progress=progress, self_loops=self_loops)
        g.build_report["kept_dense_because"] = dense_because
        return g
    import pyarrow as pa
    import pyarrow.parquet as pq

    def write(parquet: str) -> None:
        writer = None
        try:
            for start in range(0, max(len(df), 1), _ROW_GROUP_ROWS):
                # A column named twice is written once; the builder refuses the choice.
                table = pa.table({str(name): _arrow_column(df[name].iloc[start:start + _ROW_GROUP_ROWS], name)
                                  for name in dict.fromkeys(names)})
                if writer is None:
                    # The first rows' types stand for the whole column.
                    writer = pq.ParquetWriter(parquet, table.schema, compression="none")
                writer.write_table(table.cast(writer.schema))
        finally:
            if writer is not None:
                writer.close()

    return _build_from_table(write, [str(n) for n in names], weight is not None, directed,
                             path, memory, tier, ids, progress, "the DataFrame", df.index,
                             self_loops)


def from_arrow(data: Any, source: Union[str, int] = "source", target: Union[str, int] = "target",
               weight: Union[str, int, None] = None, directed: bool = True,
               path: Any = None, memory: Any = None, tier: Optional[str] = None,
               ids: str = "auto", progress: Optional[bool] = None,
               self_loops: str = "keep") -> Any:
    """A graph from an Arrow table, record batch reader or dataset
    (``pyarrow.dataset``, so a folder of Parquet or CSV files larger than memory
    streams through), with the columns and ``self_loops`` of :func:`from_pandas`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = data.schema
    names = [schema.names[c] if isinstance(c, int) else c for c in (source, target, weight)
             if c is not None]
    missing = [name for name in names if name not in schema.names]
    if missing:
        raise KeyError(f"the table has no column {missing[0]!r}; its columns are {schema.names}")

    def batches() -> Any:
        if isinstance(data, pa.Table):
            return data.select(names).to_batches(max_chunksize=_ROW_GROUP_ROWS)
        if hasattr(data, "scanner"):
            return data.scanner(columns=names, batch_size=_ROW_GROUP_ROWS).to_batches()
        if isinstance(data, pa.RecordBatchReader):
            return (batch.select(names) for batch in data)
        raise TypeError(f"from_arrow takes a pyarrow Table, RecordBatchReader or Dataset, not {type(data).__name__}")

    def write(parquet: str) -> None:
        with pq.ParquetWriter(parquet, pa.schema([schema.field(n) for n in names]),
                              compression="none") as writer:
            for batch in batches():
                writer.write_batch(batch, row_group_size=_ROW_GROUP_ROWS)

    return _build_from_table(write, names, weight is not None, directed, path, memory, tier, ids,
                             progress, "the table", self_loops=self_loops)


def from_networkx(G: Any, weight: Any = None, path: Any = None, memory: Any = None,
                  tier: Optional[str] = None, progress: Optional[bool] = None,
                  self_loops: str = "keep") -> Any:
    """A graph from a networkx graph: its nodes (any hashable labels, isolated ones
    too) in ``G``'s order become the vertices, ``g.ids`` lists the labels, and
    ``source=`` and ``sl.to_pandas`` speak them. ``weight`` names the edge attribute to
    keep (edges without it weigh 1), or is a function of ``(u, v, data)`` giving each
    edge's weight, as networkx's shortest paths take one. Self-loops are kept, as
    networkx holds them, unless ``self_loops="drop"``."""
    from . import from_edges

    nodes = list(G)
    position = {node: v for v, node in enumerate(nodes)}
    count = G.number_of_edges()
    sources = _np.fromiter((position[u] for u, _ in G.edges()), dtype=_np.uint32, count=count)
    targets = _np.fromiter((position[v] for _, v in G.edges()), dtype=_np.uint32, count=count)
    weights = None
    if callable(weight):
        values = [weight(u, v, data) for u, v, data in G.edges(data=True)]
        if any(value is None for value in values):
            raise ValueError("the weight function gives None for an edge (networkx hides such "
                             "an edge; swapless keeps every edge): give every edge a number")
        weights = _np.array(values, dtype=_np.float64)
    elif weight is not None:
        weights = _np.fromiter((data.get(weight, 1.0) for _, _, data in G.edges(data=True)),
                               dtype=_np.float64, count=count)
    g = from_edges(sources, targets, weights, directed=G.is_directed(), path=path,
                   num_vertices=len(nodes), memory=memory, tier=tier, progress=progress,
                   self_loops=self_loops)
    g._labels(nodes)
    return g


def networkx_graph(graph: Any, memory: Any = None, tier: Optional[str] = None,
                   weight: str = "weight", progress: Optional[bool] = None) -> Any:
    """A graph for networkx's functions on a .sl file or far graph, built by nothing:
    ``nx.pagerank(networkx_graph("web.sl", memory="2G"))`` runs swapless's kernel on the
    file (the graph names the swapless backend, so networkx needs no ``backend=``).

    ``graph`` is a path, a ``redis://`` address or a :class:`Graph` (then ``memory``,
    ``tier`` and ``progress`` are its own). Nodes are ``g.ids``; the file's weights, if
    any, are the edge attribute ``weight``. It is no networkx graph: ``len``, ``in``,
    iteration over nodes and ``is_directed()`` work, and a call swapless declines (see
    docs/usage.md) raises NotImplementedError (TypeError where networkx is set to fall
    back to itself) rather than read into networkx a graph that may not fit in memory."""
    from . import Graph, open
    from .nx_backend import SwaplessGraph

    if not isinstance(graph, Graph):
        graph = open(graph, memory=memory, tier=tier, progress=progress)
    elif (memory, tier, progress) != (None, None, None):
        raise ValueError("a swapless.Graph keeps its own memory, tier and progress: "
                         "give them to swapless.open, or pass a path")
    return SwaplessGraph.from_swapless(graph, weight=weight)
