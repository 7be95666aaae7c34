"""Prints the kernel reports next to GAP's times (../shared/ANCHORS.md) as a Markdown table."""

import json
import math
import pathlib
import sys

GAP = {  # seconds, OMP_NUM_THREADS=2, from ../shared/ANCHORS.md
    "kron23": {"bfs": 0.179, "pr": 7.65, "cc": 0.372, "bc": 21.0, "sssp": 2.93, "tc": 136},
    "urand23": {"bfs": 0.280, "pr": 3.63, "cc": 0.683, "bc": 42.2, "sssp": 6.28, "tc": 36.9},
}
folder = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "bench/results/kernels")
baseline = folder / "baseline"  # an older binary run right before each kernel (BASELINE=...)
print("| graph | kernel | swapless s (median) | GAP s | ratio | result | older binary s | older / now |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
ratios = {}  # (graph, kernel) -> ratio to GAP
for graph in ["kron23", "urand23"]:
    # pr-gs: PageRank by Gauss-Seidel (--method gauss-seidel), the algorithm GAP's pr runs.
    for kernel in ["bfs", "pr", "pr-gs", "cc", "bc", "sssp", "tc", "radii", "mis"]:
        path = folder / f"{graph}-{kernel}.json"
        if not path.exists():
            continue
        report = json.loads(path.read_text())
        gap = GAP[graph].get(kernel.removesuffix("-gs"))
        ratio = report["seconds"] / gap if gap else None
        if ratio:
            ratios[(graph, kernel)] = ratio
        gap_text = f"{gap}" if gap else "-"
        ratio_text = f"{ratio:.2f}" if ratio else "-"
        result = {key: value for key, value in report["result"].items() if key != "source_ids"}
        older_path = baseline / f"{graph}-{kernel}.json"
        older_text, speedup_text = "-", "-"
        if older_path.exists():
            older = json.loads(older_path.read_text())["seconds"]
            older_text, speedup_text = f"{older:.3f}", f"{older / report['seconds']:.2f}"
        print(
            f"| {graph} | {kernel} | {report['seconds']:.3f} | {gap_text} | {ratio_text} | {json.dumps(result)} "
            f"| {older_text} | {speedup_text} |"
        )
for graph in ["kron23", "urand23"]:
    for kernel in ["pr", "pr-gs"]:
        path = folder / f"{graph}-{kernel}.json"
        if path.exists():
            report = json.loads(path.read_text())
            iterations = report["result"]["iterations"]
            print(f"\n{kernel} on {graph}: {iterations} iterations, {report['seconds'] / iterations:.3f} s each")


def geometric_mean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


for label, left_out in [("power iteration", "pr-gs"), ("Gauss-Seidel, as GAP", "pr")]:
    chosen = [ratio for (graph, kernel), ratio in ratios.items() if kernel != left_out]
    if chosen:
        print(f"\nGeometric mean ratio over kernels GAP measured, PageRank by {label}: {geometric_mean(chosen):.2f}")
