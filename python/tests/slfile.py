"""A small, independent reader of swapless's .sl format for the tests: it parses
the header and section table itself, so the tests also check the format spec."""

import os
import pathlib
import struct

import numpy as np


class SlGraph:
    """The CSR sections of a .sl file as numpy arrays."""

    def __init__(self, path):
        data = open(path, "rb").read()
        assert data[:8] == b"SWAPLESS", "not a .sl file"
        version, flags, id_bytes, _weight_bytes = struct.unpack_from("<IIII", data, 8)
        self.n, self.arcs, block = struct.unpack_from("<QQQ", data, 24)
        (count,) = struct.unpack_from("<I", data, 48)
        # Version 2 checksums each 4 KiB page; version 1 checksummed 1 MiB blocks.
        assert (version, block) in ((1, 1 << 20), (2, 4096)) and id_bytes == 4
        self.directed = bool(flags & 1)
        self.weighted = bool(flags & 2)
        self.sections = {}
        for index in range(count):
            at = 56 + 32 * index
            name = data[at : at + 16].rstrip(b"\0").decode()
            offset, length = struct.unpack_from("<QQ", data, at + 16)
            self.sections[name] = (offset, length)
        self._data = data
        self.out_offsets = self._array("out_offsets", np.uint64)
        self.out_neighbors = self._array("out_neighbors", np.uint32)
        self.out_weights = self._array("out_weights", np.float32)
        self.permutation = self._array("permutation", np.uint32)

    def _array(self, name, dtype):
        if name not in self.sections:
            return None
        offset, length = self.sections[name]
        return np.frombuffer(self._data, dtype=dtype, count=length // np.dtype(dtype).itemsize, offset=offset)

    def edges(self):
        """(source, destination, weight) arrays in original ids, one row per stored arc."""
        degrees = np.diff(self.out_offsets.astype(np.int64))
        sources = np.repeat(np.arange(self.n, dtype=np.int64), degrees)
        destinations = self.out_neighbors.astype(np.int64)
        if self.permutation is not None:
            sources = self.permutation[sources].astype(np.int64)
            destinations = self.permutation[destinations].astype(np.int64)
        weights = self.out_weights if self.out_weights is not None else np.ones(len(destinations), dtype=np.float32)
        return sources, destinations, weights.astype(np.float64)


def networkx_graph(path):
    """The graph as networkx sees it, rebuilt from the .sl file's arcs (original ids)."""
    import networkx as nx

    graph = SlGraph(path)
    sources, destinations, weights = graph.edges()
    g = nx.DiGraph() if graph.directed else nx.Graph()
    g.add_nodes_from(range(graph.n))
    g.add_weighted_edges_from(zip(sources.tolist(), destinations.tolist(), weights.tolist()))
    return g


REAL_GRAPHS = pathlib.Path(__file__).resolve().parents[2] / "data"


def real_edge_lists():
    """The repository's real graphs (data/) as (path, undirected); a checkout without them
    fails rather than skips."""
    found = []
    for name, undirected in [("email-Enron", True), ("pgp-strong-2009", False), ("power", True)]:
        source = REAL_GRAPHS / f"{name}.el.gz"
        assert source.exists(), f"{source} is missing from the checkout"
        found.append((source, undirected))
    return found
