"""Graphs in far memory from Python: far_push, open("redis://..."), kernels on a far graph
equal to dram, and far errors as the documented exception classes. Starts its own
redis-server on a free loopback port and stops it by process id."""

import shutil
import socket
import subprocess
import time

import numpy as np
import pytest

import swapless as sl


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def redis(tmp_path, monkeypatch):
    assert shutil.which("redis-server"), "redis-server is needed (the README's test command installs it)"
    monkeypatch.setenv("SWAPLESS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SWAPLESS_REDIS_PASSWORD", raising=False)
    port = free_port()
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            assert time.time() < deadline, "redis-server did not start"
            time.sleep(0.02)
    yield f"redis://127.0.0.1:{port}"
    server.kill()
    server.wait()


def test_a_far_graph_gives_the_dram_answers(tmp_path, redis):
    g = sl.generate("kron", scale=14, degree=8, output=tmp_path / "k.sl")
    sent = sl.far_push(g, f"{redis}/k", chunk="64K")
    assert sent["bytes_sent"] > 0 and not sent["already_stored"]
    assert sl.far_push(g.path, f"{redis}/k", chunk="64K")["already_stored"]
    far = sl.open(f"{redis}/k", memory="18M")
    assert (far.n, far.m, far.directed) == (g.n, g.m, g.directed)
    assert far.info()["far"] == f"{redis}/k"
    for kernel in (sl.pagerank, sl.connected_components, sl.core_number):
        on_far = kernel(far)
        assert far.last_report["tier"] == "direct"
        assert far.last_report["origin"] == "far"
        assert far.last_report["far"]["network_bytes"] > 0
        assert np.array_equal(on_far, kernel(g)), kernel.__name__
    parents = sl.bfs(far, 3, verify=True)
    assert far.last_report["verified"] is True and parents[3] == 3
    far.check()


def test_far_errors_are_the_documented_exceptions(tmp_path, redis):
    g = sl.generate("kron", scale=10, degree=4, output=tmp_path / "small.sl")
    other = sl.generate("urand", scale=10, degree=4, output=tmp_path / "other.sl")
    sl.far_push(g, f"{redis}/g")
    with pytest.raises(FileExistsError, match="replace=True"):
        sl.far_push(other, f"{redis}/g")
    assert sl.far_push(other, f"{redis}/g", replace=True)["replaced"]
    with pytest.raises(FileNotFoundError, match="no graph named"):
        sl.open(f"{redis}/nothing")
    with pytest.raises(ValueError, match="tier= must be direct for a graph from redis"):
        sl.open(f"{redis}/g", tier="mmap")
    with pytest.raises(ValueError, match="runs on the direct tier by itself"):
        sl.open(f"{redis}/g", tier="far")
    with pytest.raises(ValueError, match="host:port"):
        sl.open("redis://nowhere/g")
    with pytest.raises(ConnectionError, match="cannot reach"):
        sl.open(f"redis://127.0.0.1:{free_port()}/g")
