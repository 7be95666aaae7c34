"""What networkx reads of the backend as it finishes importing, kept apart from
``swapless.nx_backend``: importing that module first imports networkx, which then asks
for this while the backend is still half imported, and finds here what it needs."""

from __future__ import annotations

import importlib
import sys


def backend_info() -> dict:
    """networkx's description of the backend: its settings, and its functions with what
    each declines once the backend has been imported."""
    info = {
        "backend_name": "swapless",
        "project": "swapless",
        "package": "swapless",
        "short_summary": "Graph analytics for graphs that do not fit in memory.",
        # nx.config.backends.swapless.memory = "2G": the budget of every conversion and
        # run (None: half of memory); .tier: "dram", "mmap" or "direct" (None: the plan's);
        # .progress: bars always (True), never (False), or where someone watches (None).
        "default_config": {"memory": None, "tier": None, "progress": None},
    }
    backend = sys.modules.get("swapless.nx_backend")
    if backend is None:
        backend = importlib.import_module("swapless.nx_backend")
    function_docs = getattr(backend, "function_docs", None)
    if function_docs is not None:
        info["functions"] = function_docs()
    return info
