#!/usr/bin/env python3
"""Print the zstd layer's figures (criterion's medians of `--bench zstd_shapes`) with each
case's throughput and its ratio to memcpy of the same bytes. Usage: zstd_summary.py [TARGET_DIR]"""
import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target") / "criterion" / "zstd_shapes"
SIZES = [("10KB", 10_000), ("100KB", 100_000), ("1MB", 1_000_000)]
print("| data (repetitive text) | compress | decompress | memcpy | compress / memcpy | decompress / memcpy "
      "| compress, context per call | decompress, context per call |")
print("|---|---|---|---|---|---|---|---|")
for label, n in SIZES:
    ns = {}
    for op in ("compress", "decompress", "memcpy", "compress_new_context", "decompress_new_context"):
        est = json.loads((root / op / label / "new" / "estimates.json").read_text())
        ns[op] = est["median"]["point_estimate"]
    gib = {op: n / (t * 1e-9) / 2**30 for op, t in ns.items()}
    print(f"| {label} | {ns['compress'] / 1000:.2f} µs ({gib['compress']:.2f} GiB/s) | {ns['decompress'] / 1000:.2f} µs "
          f"({gib['decompress']:.2f} GiB/s) | {ns['memcpy'] / 1000:.2f} µs ({gib['memcpy']:.1f} GiB/s) | "
          f"{ns['compress'] / ns['memcpy']:.1f}× | {ns['decompress'] / ns['memcpy']:.1f}× | "
          f"{ns['compress_new_context'] / 1000:.2f} µs | {ns['decompress_new_context'] / 1000:.2f} µs |")
