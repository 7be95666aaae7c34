"""docs/networkx-walkthrough.md runs as written: its Python blocks, in order, in one
namespace, in a folder of their own."""

import pathlib
import re

import networkx as nx

WALKTHROUGH = pathlib.Path(__file__).parents[2] / "docs" / "networkx-walkthrough.md"


def test_the_networkx_walkthrough_runs_as_written(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", WALKTHROUGH.read_text(), re.DOTALL)
    assert len(blocks) == 4
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    # The page sets networkx's global configuration; the other tests keep its defaults.
    memory, ignored = nx.config.backends.swapless.memory, set(nx.config.warnings_to_ignore)
    try:
        for number, block in enumerate(blocks, 1):
            exec(compile(block, f"{WALKTHROUGH.name}, block {number}", "exec"), namespace)
    finally:
        nx.config.backends.swapless.memory = memory
        nx.config.warnings_to_ignore = ignored
    assert (tmp_path / "graph.sl").exists()
