"""Two workers side by side in the peer bench's setting, for bench/ab.py and bench/perf.py.

Each worker is a directory with a build/ and a wrangler.toml; `peer` names the JavaScript
peer (../shared/peer/worker.js, used in place, never copied). Both are seeded with the
peer bench's data set and served by ../shared/peer/bench.py's `Worker`.

Of the two workerd processes in a worker's process group, wrangler's proxy starts first
and the runtime that runs the worker second, so the runtime has the larger pid. Counting
only it leaves out the proxy, whose cost per request is the same for any worker.
"""
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "..", "shared", "peer"))
import bench as B  # noqa: E402


class Pair:
    """Workers A and B served and seeded; `card` is a card id of the seed. Use with `with`:
    leaving stops both and removes what was made for them."""

    def __init__(self, a_dir, b_dir, prefix):
        self.made = []
        if b_dir == "peer":
            b_dir = tempfile.mkdtemp(prefix=f"{prefix}-peer-")
            self.made.append(b_dir)
            with open(os.path.join(b_dir, "wrangler.toml"), "w") as f:
                # The peer's config for A's checkout: with a `migrations-bench/` (the one-
                # database checkout bench/peer_checkout.py makes) it does the same write work.
                f.write(B.peer_config(a_dir, os.path.join(B.PEER, "worker.js")))
        self.tmp = tempfile.mkdtemp(prefix=f"{prefix}-")
        self.made.append(self.tmp)
        self.workers = []
        seed = os.path.join(self.tmp, "seed.sql")
        B.seed_sql(seed)
        sa, sb = os.path.join(self.tmp, "a"), os.path.join(self.tmp, "b")
        os.makedirs(sa)
        os.makedirs(sb)
        ta, tb = os.path.join(a_dir, "wrangler.toml"), os.path.join(b_dir, "wrangler.toml")
        B.prepare(ROOT, sa, "a", ta, seed)
        B.prepare(ROOT, sb, "b", tb, seed)
        try:
            self.workers.append(B.Worker("a", ROOT, ta, sa))
            B.adopt_minted_token(ROOT, self.workers[0], sb, tb)
            self.workers.append(B.Worker("b", ROOT, tb, sb))
            self.card = B.http("GET", self.workers[0].base + "/api/v1/cards?per_page=1")[1]["data"][0]["id"]
        except BaseException:
            self.close()
            raise

    def endpoint(self, name):
        """`(method, path, body, auth)` of a bench endpoint, its card id filled in."""
        method, path, body, auth = B.ENDPOINTS[name]
        return method, path.replace("{card}", str(self.card)), body, auth

    def load(self, worker, endpoint, seconds):
        """Loads `worker` with `endpoint` for `seconds` (wrk); its result."""
        method, path, body, auth = endpoint
        return B.wrk(worker.base + path, method, body, auth, self.tmp, seconds)

    def close(self):
        for w in self.workers:
            w.stop()
        for d in self.made:
            shutil.rmtree(d, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()


def runtime_pid(worker):
    """The pid of the worker's runtime workerd process, or None."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.getpgid(int(pid)) != worker.proc.pid:
                continue
            if b"workerd" not in open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")[0]:
                continue
            pids.append(int(pid))
        except OSError:
            continue
    return max(pids) if pids else None


def cpu_seconds(pid):
    """utime + stime of a process, in seconds."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
