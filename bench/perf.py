"""Where a row's CPU goes, per request: `perf record` of two workers' runtime processes.

usage: python3 bench/perf.py DIR_A DIR_B "getCard (20 leads)" [MARKER ...]

DIR_A and DIR_B are as for bench/ab.py (a build/ and a wrangler.toml each); DIR_B may be
`peer`. Both workers are served in the peer bench's setting, warmed with the row for 3 s
each, then loaded with it in PERF_ROUNDS (default 2) alternating slices, A B then B A, 16 s
per worker in all, while `perf record -g` samples the loaded worker's runtime workerd
process (wrangler's proxy is left out).
Printed for each, in µs of CPU per request:
- the samples by kind: SQLite, V8's runtime and builtins, workerd and kj (its event loop),
  malloc, the kernel, JIT code (JavaScript and wasm; one bucket unless V8 writes a perf
  map, below), other native code;
- the inclusive time of each MARKER (a substring of a frame's name), by default the
  SQLite frames that found the statements compiled again on every run (session 8:
  `sqlite3Reprepare`), so a statement that stops using its cached plan shows up here.

JIT frames get names (JavaScript `file:line:col`, wasm function names) when V8 writes
/tmp/perf-PID.map: workerd takes V8 flags only from its config, which wrangler does not
expose, so this needs `--perf-basic-prof` put into miniflare's config for the measurement
(bench/README.md, session 8, says how). perf must be installed (Debian: linux-perf).
PERF_TOP=N also prints the N costliest leaf frames by name; PERF_KIND=wasm (or any kind
above) keeps only those of one kind: a wasm frame's number is its function's index, which
`make wasm-name N=...` names.
"""
import collections
import os
import re
import signal
import subprocess
import sys

from runtime import Pair, runtime_pid

HZ = 2999
# Native frames, named without a perf map. With one, JavaScript frames can be markers too
# (e.g. `database.worker.js`, the local D1's object; `d1-api`, the D1 client).
MARKERS = ["sqlite3_step", "sqlite3Reprepare", "sqlite3LockAndPrepare", "SqlStorage::exec",
           "transactionSync"]


def kind(sym):
    if sym.startswith("JS:") and re.search(r"-\d+-(turbofan|liftoff)$", sym):
        return "wasm"
    if sym.startswith(("JS:", "RegExp")):
        return "JavaScript"
    if sym.startswith("Builtins_"):
        return "V8 builtins"
    if "sqlite3" in sym:
        return "SQLite"
    if "tcmalloc" in sym or "TCMalloc" in sym:
        return "malloc"
    if "v8::" in sym:
        return "V8 runtime"
    if "kj::" in sym or "capnp" in sym:
        return "kj"
    if "workerd::" in sym:
        return "workerd"
    if re.match(r"^(0x)?[0-9a-f]+$", sym) or sym == "[unknown]":
        return "JIT (no perf map)"
    return "other native"


def report(slices, markers):
    """`slices`: (perf data file, requests served while it was recorded) of one worker."""
    requests = sum(n for _, n in slices)
    us = lambda n: n / HZ / requests * 1e6
    kinds, marked, leaves, total = (collections.Counter(), collections.Counter(),
                                    collections.Counter(), 0)
    for data, _ in slices:
        script = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"],
                                capture_output=True, text=True).stdout
        for sample in script.split("\n\n"):
            frames = [l.strip() for l in sample.strip().split("\n") if l.strip()]
            if not frames:
                continue
            total += 1
            ip, _, leaf = frames[0].partition(" ")
            kinds["kernel" if ip.startswith("ffffffff") else kind(leaf.strip())] += 1
            if kind(leaf.strip()) == os.environ.get("PERF_KIND", kind(leaf.strip())):
                leaves[leaf.strip()] += 1
            text = "\n".join(frames)
            for m in markers:
                if m in text:
                    marked[m] += 1
    print(f"  total {us(total):7.1f} µs/request over {requests} requests")
    for k, n in kinds.most_common():
        print(f"  {k:20s} {us(n):7.1f}")
    for m in markers:
        print(f"  incl. {m:32s} {us(marked[m]):7.1f}")
    if os.environ.get("PERF_TOP"):
        # The leaf frames that cost most, by name (wasm and JavaScript named only with a
        # perf map, above), of one kind with PERF_KIND (e.g. `wasm`).
        for sym, n in leaves.most_common(int(os.environ["PERF_TOP"])):
            print(f"    {us(n):7.1f}  {sym[:110]}")


def main():
    a_dir, b_dir, ep = sys.argv[1], sys.argv[2], sys.argv[3]
    markers = sys.argv[4:] or MARKERS
    rounds = int(os.environ.get("PERF_ROUNDS", "2"))
    with Pair(a_dir, b_dir, "perf") as pair:
        endpoint = pair.endpoint(ep)
        # Both warm before either is recorded, then slices in A B, B A, ... order. Recorded
        # one after the other, whichever worker went first read 10-25 % higher (session of
        # 2026-11-29 (6), the same two builds both ways round); alternated, the first named
        # still reads 2-6 % higher. Compare builds with bench/ab.py; this says where the
        # CPU of each goes.
        for w in pair.workers:
            pair.load(w, endpoint, 3)
        slices = {w.name: [] for w in pair.workers}
        for r in range(rounds):
            for w in (pair.workers if r % 2 == 0 else pair.workers[::-1]):
                data = os.path.join(pair.tmp, f"perf-{w.name}-{r}.data")
                rec = subprocess.Popen(["perf", "record", "-F", str(HZ), "-g", "-p",
                                        str(runtime_pid(w)), "-o", data],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                out = pair.load(w, endpoint, max(1, round(16 / rounds)))
                rec.send_signal(signal.SIGINT)
                rec.wait()
                slices[w.name].append((data, out["requests"]))
        for w, label in zip(pair.workers, (a_dir, b_dir)):
            print(f"{label}: {ep}", flush=True)
            report(slices[w.name], markers)


if __name__ == "__main__":
    main()
