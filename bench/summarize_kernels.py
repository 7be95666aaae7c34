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
print("| graph | kernel | swapless s (median) | GAP s | ratio | result |")
print("| --- | --- | --- | --- | --- | --- |")
ratios = []
for graph in ["kron23", "urand23"]:
    for kernel in ["bfs", "pr", "cc", "bc", "sssp", "tc", "radii", "mis"]:
        path = folder / f"{graph}-{kernel}.json"
        if not path.exists():
            continue
        report = json.loads(path.read_text())
        gap = GAP[graph].get(kernel)
        ratio = report["seconds"] / gap if gap else None
        if ratio:
            ratios.append(ratio)
        gap_text = f"{gap}" if gap else "-"
        ratio_text = f"{ratio:.2f}" if ratio else "-"
        result = {key: value for key, value in report["result"].items() if key != "source_ids"}
        print(f"| {graph} | {kernel} | {report['seconds']:.3f} | {gap_text} | {ratio_text} | {json.dumps(result)} |")
if ratios:
    print(f"\nGeometric mean ratio over kernels GAP measured: {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f}")
