"""A JSON array ingests in linear time: the same records as JSONL and as one array.

Issue 12 measured 29 MB as an array at 138 s against 0.14 s as JSONL (each record's line
number was counted from the start of the text: quadratic). This writes ~``--mb`` MB of
synthetic logs both ways and times (1) reading alone (cut, check and parse every record)
and (2) a whole ``ingest`` into an empty database. Target: array <= 2x JSONL.
It also reads a file holding one ``--huge-mb`` record between two good ones (as a line and
as an array element) in a fresh process and prints that process's peak RSS: the record is
rejected as it streams past, never held whole (target: far below the record's size).

    DWQA_BENCH_BOLT_PORT=... .venv/bin/python -m benchmarks.bench_ingest_array [--mb 30]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest, read_records
from dwqa_graph.ingest.synthetic import synthetic_log

from ._server import start_bench_server, stop_bench_server


def write_both(folder: Path, mb: int) -> tuple[Path, Path, int]:
    jsonl, array = folder / "logs.jsonl", folder / "logs.json"
    n = 0
    with jsonl.open("w") as fl, array.open("w") as fa:
        fa.write("[\n")
        while fl.tell() < mb << 20:
            text = json.dumps(synthetic_log(n), indent=None)
            fl.write(text + "\n")
            fa.write((",\n" if n else "") + text)
            n += 1
        fa.write("\n]\n")
    return jsonl, array, n


def read_all(path: Path) -> tuple[float, int]:
    started = time.perf_counter()
    n = sum(1 for _ in read_records(path))
    return time.perf_counter() - started, n


_PEAK = """
import resource, sys
from dwqa_graph.ingest.reader import read_records
got = [getattr(r, "reason", "ok") for r in read_records(sys.argv[1])]
print(got, round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
"""


def huge_record(folder: Path, mb: int) -> None:
    for as_array in (False, True):
        path = folder / ("huge.json" if as_array else "huge.jsonl")
        good = json.dumps(synthetic_log(0)).encode()
        with path.open("wb") as fh:
            fh.write(b"[" if as_array else b"")
            fh.write(good + (b",\n" if as_array else b"\n"))
            fh.write(b'{"question": "big?", "sources": [{"id": 1, "url": "https://a/", '
                     b'"snippet": "')
            block = b"x" * (1 << 20)
            for _ in range(mb):
                fh.write(block)
            fh.write(b'"}]}' + (b",\n" if as_array else b"\n"))
            fh.write(good + (b"]\n" if as_array else b"\n"))
        started = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", _PEAK, str(path)], capture_output=True,
                             text=True, check=True).stdout.split("] ")
        print(f"{mb} MB record in {'an array' if as_array else 'JSONL'}: {out[0]}] in "
              f"{time.perf_counter() - started:.1f} s, reader peak RSS {out[1].strip()} MB")
        path.unlink()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=30)
    ap.add_argument("--no-db", action="store_true", help="Time reading only.")
    ap.add_argument("--huge-mb", type=int, default=300)
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp())
    huge_record(folder, args.huge_mb)
    jsonl, array, n = write_both(folder, args.mb)
    print(f"{n:,} records: JSONL {jsonl.stat().st_size / 2**20:.1f} MB, "
          f"array {array.stat().st_size / 2**20:.1f} MB")
    for path in (jsonl, array):  # warm the page cache and the imports
        read_all(path)
    (tl, nl), (ta, na) = read_all(jsonl), read_all(array)
    assert nl == na == n, (nl, na, n)
    print(f"read + parse: JSONL {tl:.2f} s, array {ta:.2f} s -> array/JSONL {ta / tl:.2f}x")
    if args.no_db:
        return
    settings, started = start_bench_server()
    try:
        with Store(settings) as store:
            times = {}
            for path in (jsonl, array):
                store.wipe()
                store.apply_schema()
                t0 = time.perf_counter()
                report = ingest(store, [path], dataset="bench")
                times[path.suffix] = time.perf_counter() - t0
                assert report.ingested == n and report.rejected == 0, report
    finally:
        stop_bench_server(settings, started)
    ratio = times[".json"] / times[".jsonl"]
    print(f"whole ingest: JSONL {times['.jsonl']:.1f} s, array {times['.json']:.1f} s -> "
          f"array/JSONL {ratio:.2f}x (target <= 2x)")


if __name__ == "__main__":
    main()
