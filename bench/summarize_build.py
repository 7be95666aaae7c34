"""Prints the build reports in a folder as the Markdown table BENCHMARKS.md uses."""

import json
import pathlib
import sys

folder = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "bench/results/build")
print("| run | seconds | peak RSS (MiB) | budget (MiB) | output (MiB) | runs | M input edges/s | peak RSS / output |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for path in sorted(folder.glob("*.json")):
    report = json.loads(path.read_text())
    mib = 1 << 20
    print(
        f"| {path.stem} | {report['seconds']:.1f} | {report['peak_rss_bytes'] / mib:.0f} "
        f"| {report['memory_budget_bytes'] / mib:.0f} | {report['output_bytes'] / mib:.0f} "
        f"| {report['runs_spilled']} | {report['input_edges_per_second'] / 1e6:.2f} "
        f"| {report['peak_rss_bytes'] / report['output_bytes']:.2f} |"
    )
