"""CPU time of process trees and host pressure, read from /proc.

Server CPU is the postmaster tree: the postmaster's own utime+stime, plus
cutime+cstime (children it has reaped: backends that exited, e.g. every
connection of pgbench -C), plus each live child's utime+stime+cutime+cstime.
A delta of two readings is the CPU the server spent in between, whether its
backends lived through the window or not. Those counters are clock ticks
(10 ms): over a run of a few hundred connections of ~4 ms each, a tick is
~1% of the total.

CpuGroup is the finer reading where the machine allows it: a cpuacct cgroup
(v1) that the postmaster tree is moved into. Every process the postmaster
forks afterwards is born in it, and the group's usage counter (ns) keeps
the CPU of members that exited, so it is the same sum without the ticks.
"""

import os
import time

_TICK = os.sysconf("SC_CLK_TCK")


def parse_stat(text):
    """(ppid, utime, stime, cutime, cstime) in ticks from /proc/PID/stat."""
    # The command name may hold spaces or parentheses: split after the last ')'.
    rest = text[text.rindex(")") + 2:].split()
    ppid = int(rest[1])
    utime, stime, cutime, cstime = (int(x) for x in rest[11:15])
    return ppid, utime, stime, cutime, cstime


def _read_stat(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return parse_stat(f.read())
    except (OSError, ValueError, IndexError):
        return None


def children_of(pid):
    kids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        st = _read_stat(int(name))
        if st and st[0] == pid:
            kids.append(int(name))
    return kids


def tree_cpu_s(root_pid):
    """CPU seconds of root_pid and its direct children, reaped ones included."""
    st = _read_stat(root_pid)
    if st is None:
        raise OSError(f"process {root_pid} is gone")
    total = sum(st[1:5])
    for kid in children_of(root_pid):
        kst = _read_stat(kid)
        if kst:
            total += sum(kst[1:5])
    return total / _TICK


def proc_cpu_s(pid):
    """CPU seconds of one process (its own and its reaped children), or None."""
    st = _read_stat(pid)
    return None if st is None else sum(st[1:5]) / _TICK


def tree_pids(root_pid):
    return [root_pid] + children_of(root_pid)


CPUACCT_ROOT = "/sys/fs/cgroup/cpuacct"


class CpuGroup:
    """A cpuacct cgroup holding one server's process tree. Raises OSError
    when the hierarchy is missing or not writable (callers fall back to
    tree_cpu_s and say so)."""

    def __init__(self, name, root=CPUACCT_ROOT):
        if not os.path.isfile(os.path.join(root, "cpuacct.usage")):
            raise OSError(f"no cpuacct hierarchy at {root}")
        self.root = root
        self.path = os.path.join(root, f"{name}-{os.getpid()}")
        os.mkdir(self.path)

    def adopt(self, root_pid):
        """Move a process tree in; its later children are born inside."""
        for pid in tree_pids(root_pid):
            try:
                with open(os.path.join(self.path, "cgroup.procs"), "w") as f:
                    f.write(str(pid))
            except ProcessLookupError:
                pass    # exited between listing and moving

    def usage_s(self):
        with open(os.path.join(self.path, "cpuacct.usage")) as f:
            return int(f.read()) / 1e9

    def remove(self):
        """Give any process left back to the parent group, then remove."""
        try:
            with open(os.path.join(self.path, "cgroup.procs")) as f:
                left = [ln.strip() for ln in f if ln.strip()]
            for pid in left:
                try:
                    with open(os.path.join(self.root, "cgroup.procs"), "w") as f:
                        f.write(pid)
                except OSError:
                    pass
            os.rmdir(self.path)
        except OSError:
            pass


def peak_rss_kb(pid):
    """VmHWM (peak resident set) of a live process in kB, or None."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def parse_pressure(text):
    """The 'some' total (microseconds stalled) of a /proc/pressure file."""
    for line in text.splitlines():
        if line.startswith("some "):
            for field in line.split()[1:]:
                k, _, v = field.partition("=")
                if k == "total":
                    return int(v)
    raise ValueError("no 'some total' in pressure text")


def pressure_total_us(resource):
    try:
        with open(f"/proc/pressure/{resource}") as f:
            return parse_pressure(f.read())
    except (OSError, ValueError):
        return None


class PressureWindow:
    """Percent of wall time some task stalled on CPU / IO over a window."""

    def __init__(self):
        self.t0 = time.monotonic()
        self.cpu0 = pressure_total_us("cpu")
        self.io0 = pressure_total_us("io")

    def close(self):
        dt_us = (time.monotonic() - self.t0) * 1e6
        cpu1 = pressure_total_us("cpu")
        io1 = pressure_total_us("io")

        def pct(a, b):
            if a is None or b is None or dt_us <= 0:
                return None
            return round(100.0 * (b - a) / dt_us, 2)
        return pct(self.cpu0, cpu1), pct(self.io0, io1)


def quiet_pressure(seconds=0.4):
    """Host pressure over a short window while our own server is idle: what
    the rest of the machine (other jobs) is doing."""
    w = PressureWindow()
    time.sleep(seconds)
    return w.close()
