"""The runtime process of a worker served by ../shared/peer/bench.py's `Worker`.

Of the two workerd processes in the worker's process group, wrangler's proxy starts first
and the runtime that runs the worker second, so the runtime has the larger pid. Counting
only it leaves out the proxy, whose cost per request is the same for any worker.
"""
import os


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
