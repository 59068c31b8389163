"""Where a slice of `make load` spent the machine's CPU: each process's user and system time
read from /proc before and after it, summed by the part of the site it belongs to, and the
machine's own count (/proc/stat), which also holds what no process is charged with (the
kernel's interrupts, the loopback network's soft interrupts) and processes that came and
went within the slice (charged to "gone or unnamed"). wrk lives only within its slice, so it
is counted from the children this process waited for (`make load` waits for nothing else
while a slice runs).

A write's cost to readers is then told in CPU, not only in requests lost: what each part
spent more a second under corrections than under reads only, over the changes made."""

import os
import resource
from collections import Counter

TICKS = os.sysconf("SC_CLK_TCK")

# In the order they are shown; the first whose test a process's command line passes.
PARTS = (
    ("gunicorn", lambda line: "gunicorn" in line),
    ("PostgreSQL autovacuum", lambda line: line.startswith("postgres") and "autovacuum" in line),
    (
        "PostgreSQL backends",
        lambda line: line.startswith("postgres:") and ("(" in line or "[local]" in line),
    ),
    ("PostgreSQL background", lambda line: line.startswith("postgres")),
    ("Redis", lambda line: "redis-server" in line),
    ("wrk", lambda line: line.startswith("wrk")),
    ("editors", lambda line: "bench/writer.py" in line),
    ("worker", lambda line: "run_worker" in line or "db_worker" in line),
)
OTHER, GONE = "other processes", "gone or unnamed"
KINDS = ("reads only", "corrections")  # the slices `table` sets side by side


def part_of(command_line):
    for name, test in PARTS:
        if test(command_line):
            return name
    return OTHER


def _process_times():
    """{pid: (part, CPU ticks)} of every process with a command line (kernel threads have
    none, and their time is in the machine's count)."""
    times = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as file:
                line = file.read().replace(b"\0", b" ").decode(errors="replace").strip()
            with open(f"/proc/{entry.name}/stat") as file:
                fields = file.read().rsplit(")", 1)[1].split()
        except OSError:  # (it ended while being read)
            continue
        if not line:
            continue
        # utime and stime: the 14th and 15th fields, the 12th and 13th after the name.
        times[int(entry.name)] = (part_of(line), int(fields[11]) + int(fields[12]))
    return times


def _machine_ticks():
    """The machine's busy ticks, all cores: everything but idle and iowait."""
    with open("/proc/stat") as file:
        fields = [int(value) for value in file.readline().split()[1:]]
    idle, iowait = fields[3], fields[4]
    # (guest time is counted within user already)
    return sum(fields[:8]) - idle - iowait


def _waited_for():
    """CPU seconds of this process's children that ended and were waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def snapshot():
    return _process_times(), _machine_ticks(), _waited_for()


def spent(before, after):
    """{part: CPU seconds} between two snapshots, with "machine" the whole of it."""
    processes_before, machine_before, waited_before = before
    processes_after, machine_after, waited_after = after
    parts = Counter()
    for pid, (part, ticks) in processes_after.items():
        earlier = processes_before.get(pid)
        # A pid reused for another process within the slice counts from nothing.
        parts[part] += ticks - (earlier[1] if earlier and earlier[0] == part else 0)
    machine = (machine_after - machine_before) / TICKS
    seconds = {part: ticks / TICKS for part, ticks in parts.items()}
    seconds["wrk"] = seconds.get("wrk", 0) + waited_after - waited_before
    seconds[GONE] = max(0.0, machine - sum(seconds.values()))
    seconds["machine"] = machine
    return seconds


def table(kinds):
    """Markdown rows: CPU seconds a second of each part under each kind of slice, the
    difference (corrections come one a second, so it is also CPU ms a change), and each
    part's CPU per request served. `kinds` maps each of KINDS to (Counter of CPU seconds,
    seconds measured, requests served)."""
    (reads, reads_seconds, reads_served), (writes, writes_seconds, writes_served) = (
        kinds[kind] for kind in KINDS
    )
    shown = [name for name, _ in PARTS] + [OTHER, GONE, "machine"]
    lines = [
        "| part | reads only, CPU s/s | corrections, CPU s/s | more, ms a change "
        "| reads only, ms a request | corrections, ms a request |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for part in shown:
        alone = reads.get(part, 0) / reads_seconds
        under = writes.get(part, 0) / writes_seconds
        lines.append(
            f"| {part} | {alone:.3f} | {under:.3f} | {1000 * (under - alone):+.0f} "
            f"| {1000 * reads.get(part, 0) / max(reads_served, 1):.2f} "
            f"| {1000 * writes.get(part, 0) / max(writes_served, 1):.2f} |"
        )
    return "\n".join(lines)
