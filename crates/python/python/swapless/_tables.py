"""Graphs from what people hold in memory: pandas DataFrames, Arrow tables and
datasets, networkx graphs.

A table goes to the builder as a Parquet file of just its edge columns, written a
batch at a time and uncompressed: the build then keeps to its memory budget and
compacts any ids (64-bit integers, strings) as it does for a file. Small dense integer
ids skip the file and go straight to the builder as arrays.
"""

from __future__ import annotations

import os as _os
import tempfile as _tempfile
from typing import Any, Optional, Union

import numpy as _np

from . import _core

# Rows a Parquet row group holds when a table is handed to the builder.
_ROW_GROUP_ROWS = 1 << 20


def _graph_path(path: Any) -> tuple:
    """Where a new graph goes: ``path``, or a temporary folder kept with the graph."""
    if path is not None:
        return _os.fspath(path), None
    keep = _tempfile.TemporaryDirectory(prefix="swapless-")
    return _os.path.join(keep.name, "graph.sl"), keep


def _build_from_table(write_parquet: Any, columns: list, weighted: bool, directed: bool,
                      path: Any, memory: Any, tier: Optional[str], ids: str,
                      progress: Optional[bool]) -> Any:
    """Writes the edge columns with ``write_parquet(file)`` and builds a graph from them."""
    from . import Graph, _shown, _size

    output, keep = _graph_path(path)
    with _tempfile.TemporaryDirectory(prefix="swapless-table-",
                                      dir=_os.path.dirname(_os.path.abspath(output))) as scratch:
        parquet = _os.path.join(scratch, "edges.parquet")
        write_parquet(parquet)
        _shown("building the graph", progress, lambda bar: _core.build(
            parquet, output, _size(memory), not directed, weighted, None, "auto", ids,
            columns[0], columns[1], columns[2] if weighted else None, None, progress=bar))
    return Graph(output, memory=memory, tier=tier, _keep=keep, progress=progress)


def _small_dense(sources: _np.ndarray, targets: _np.ndarray) -> bool:
    """Whether integer ids can be the vertices themselves: in 0..2^32-2 and filling
    most of 0..max id (as a build's ``ids="auto"`` decides)."""
    if not (_np.issubdtype(sources.dtype, _np.integer) and _np.issubdtype(targets.dtype, _np.integer)):
        return False
    if sources.size == 0:
        return True
    low = min(sources.min(), targets.min())
    high = max(sources.max(), targets.max())
    return low >= 0 and high <= 2**32 - 2 and (high < 2**20 or high <= 4 * sources.size)


def from_pandas(df: Any, source: Union[str, int] = "source", target: Union[str, int] = "target",
                weight: Union[str, int, None] = None, directed: bool = True,
                path: Any = None, memory: Any = None, tier: Optional[str] = None,
                ids: str = "auto", progress: Optional[bool] = None) -> Any:
    """A graph from the edges in DataFrame ``df``: one row an edge, from column
    ``source`` to column ``target`` (names, or positions from 0), with ``weight``'s
    values when given. Ids may be any integers or strings; results speak them again
    (``g.ids``, ``sl.to_pandas``). With ``path=None`` the file is temporary. The build
    keeps to ``memory``, beside the DataFrame the caller already holds."""
    names = [df.columns[c] if isinstance(c, int) else c for c in (source, target, weight)
             if c is not None]
    missing = [name for name in names if name not in df.columns]
    if missing:
        raise KeyError(f"the DataFrame has no column {missing[0]!r}; its columns are {list(df.columns)}")
    sources = df[names[0]].to_numpy()
    targets = df[names[1]].to_numpy()
    if ids != "compact" and _small_dense(sources, targets):
        from . import from_edges
        weights = df[names[2]].to_numpy() if weight is not None else None
        return from_edges(sources, targets, weights, directed=directed, path=path,
                          memory=memory, tier=tier, progress=progress)
    import pyarrow as pa
    import pyarrow.parquet as pq

    def write(parquet: str) -> None:
        writer = None
        try:
            for start in range(0, max(len(df), 1), _ROW_GROUP_ROWS):
                part = df.iloc[start:start + _ROW_GROUP_ROWS][names]
                table = pa.Table.from_pandas(part, preserve_index=False)
                if writer is None:
                    # The first rows' types stand for the whole column.
                    writer = pq.ParquetWriter(parquet, table.schema, compression="none")
                writer.write_table(table.cast(writer.schema))
        finally:
            if writer is not None:
                writer.close()

    return _build_from_table(write, [str(n) for n in names], weight is not None, directed,
                             path, memory, tier, ids, progress)


def from_arrow(data: Any, source: Union[str, int] = "source", target: Union[str, int] = "target",
               weight: Union[str, int, None] = None, directed: bool = True,
               path: Any = None, memory: Any = None, tier: Optional[str] = None,
               ids: str = "auto", progress: Optional[bool] = None) -> Any:
    """A graph from an Arrow table, record batch reader or dataset
    (``pyarrow.dataset``, so a folder of Parquet or CSV files larger than memory
    streams through), with the columns of :func:`from_pandas`."""
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
                             progress)


def from_networkx(G: Any, weight: Optional[str] = None, path: Any = None, memory: Any = None,
                  tier: Optional[str] = None, progress: Optional[bool] = None) -> Any:
    """A graph from a networkx graph: its nodes (any hashable labels, isolated ones
    too) in ``G``'s order become the vertices, ``g.ids`` lists the labels, and
    ``source=`` and ``sl.to_pandas`` speak them. ``weight`` names the edge attribute to
    keep (edges without it weigh 1)."""
    from . import from_edges

    nodes = list(G)
    position = {node: v for v, node in enumerate(nodes)}
    count = G.number_of_edges()
    sources = _np.fromiter((position[u] for u, _ in G.edges()), dtype=_np.uint32, count=count)
    targets = _np.fromiter((position[v] for _, v in G.edges()), dtype=_np.uint32, count=count)
    weights = None
    if weight is not None:
        weights = _np.fromiter((data.get(weight, 1.0) for _, _, data in G.edges(data=True)),
                               dtype=_np.float64, count=count)
    g = from_edges(sources, targets, weights, directed=G.is_directed(), path=path,
                   num_vertices=len(nodes), memory=memory, tier=tier, progress=progress)
    g._labels(nodes)
    return g
