"""A/B of two builds of this worker, side by side, in the peer bench's setting.

usage: python3 bench/ab.py DIR_A DIR_B ["listCards 100,getCard (20 leads),..."]

Each DIR holds a build/ and a wrangler.toml (copy the project's; link migrations/ in).
DIR_B may be `peer`: the JavaScript peer (../shared/peer/worker.js, used in place, not
copied), e.g. `AB_RUNTIME_ONLY=1 bench/ab.py . peer` for the runtime's cost of each row
in both workers without wrangler's proxy.
Both are seeded with the peer bench's data set and measured in alternating 3 s slices
(AB_ROUNDS, default 4) as CPU ms per request of each worker's workerd processes; the
medians and B/A are printed. It reuses ../shared/peer/bench.py (seed, serving, wrk) by
import, so A/B figures and peer figures are measured the same way. Slices move by ~10 %
on the shared machine: differences under that need more rounds. AB_RUNTIME_ONLY=1 counts
only the runtime's workerd process (the later of the two in a worker's process group), not
wrangler's proxy, whose cost per request is the same for any build and only adds noise.
"""
import os
import statistics
import sys

from runtime import Pair, cpu_seconds, runtime_pid

a_dir, b_dir = sys.argv[1], sys.argv[2]
eps = sys.argv[3].split(",") if len(sys.argv) > 3 else ["GET / (no storage)", "listCards 100", "getCard (20 leads)", "patchCard"]
rounds = int(os.environ.get("AB_ROUNDS", "4"))
runtime_only = os.environ.get("AB_RUNTIME_ONLY") == "1"


def cpu(w):
    """CPU seconds of the worker's workerd processes, or of its runtime process only."""
    if not runtime_only:
        return w.cpu_seconds()
    pid = runtime_pid(w)
    try:
        return cpu_seconds(pid) if pid else 0.0
    except (OSError, IndexError, ValueError):
        return 0.0


with Pair(a_dir, b_dir, "ab") as pair:
    wa, wb = pair.workers
    for ep in eps:
        endpoint = pair.endpoint(ep)
        res = {"a": [], "b": []}
        for w in (wa, wb):
            pair.load(w, endpoint, 2)
        for r in range(rounds):
            for w in ((wa, wb) if r % 2 == 0 else (wb, wa)):
                c0 = cpu(w)
                out = pair.load(w, endpoint, 3)
                res[w.name].append((cpu(w) - c0) * 1000 / out["requests"])
        ma, mb = statistics.median(res["a"]), statistics.median(res["b"])
        print(f"{ep:22s} A {ma:.3f}  B {mb:.3f}  B/A {mb / ma:.3f}   "
              f"A:{['%.2f' % x for x in res['a']]} B:{['%.2f' % x for x in res['b']]}", flush=True)
