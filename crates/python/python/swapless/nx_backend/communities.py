"""Communities: label propagation."""

from __future__ import annotations

from typing import Any

import swapless as _sl

from ._graph import SwaplessGraph, dispatched


@dispatched(docs="Undirected graphs, as networkx's.")
def label_propagation_communities(G: SwaplessGraph, *, backend: Any = None,
                                  **backend_kwargs: Any) -> Any:
    """networkx's ``label_propagation_communities``: the same coloring, order and ties,
    so the same communities, as sets of nodes in the order networkx gives them."""
    g = G.sl
    communities: dict = {}
    for node, label in zip(g.ids.tolist(), _sl.label_propagation(g).tolist()):
        communities.setdefault(label, set()).add(node)
    return communities.values()
