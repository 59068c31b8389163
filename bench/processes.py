"""The processes `make load` (bench/load.py) starts and measures with: wrk, gunicorn's
readiness, the editors and imports it runs in the background, and their ends."""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STEP_TIMEOUT = 1800  # seconds any one preparation step may take
# Seconds a row measured until a background process ends goes on after it.
AFTER = 5


def ensure_wrk():
    """wrk from Debian, installed as scripts/install-system-deps.sh installs packages."""
    if shutil.which("wrk"):
        return
    if os.geteuid() != 0:
        raise SystemExit("make load needs wrk: apt-get install wrk (as root)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env, timeout=STEP_TIMEOUT)
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", "wrk"], check=True, env=env, timeout=STEP_TIMEOUT
    )


def free_port(preferred=8765):
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", preferred))
        except OSError:
            probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve(port, env, log, *, workers, threads=1):
    """gunicorn serving the site on 127.0.0.1:`port` in a session of its own, its errors
    to `log` (a file, or DEVNULL); wait_until_serving tells when it answers."""
    return subprocess.Popen(
        [
            *(sys.executable, "-m", "gunicorn", "incidentlib.wsgi"),
            *(f"--bind=127.0.0.1:{port}", f"--workers={workers}", f"--threads={threads}"),
            "--timeout=60",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
        start_new_session=True,
    )


def wait_until_serving(base_url, server, deadline=60):
    stop = time.monotonic() + deadline
    while time.monotonic() < stop:
        if server.poll() is not None:
            raise SystemExit(f"gunicorn exited with status {server.returncode}")
        try:
            with urllib.request.urlopen(f"{base_url}/healthz", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"gunicorn did not answer {base_url}/healthz within {deadline} s")


def stop(process):
    """SIGTERM to the process group, then SIGKILL if it lingers."""
    if process is None or process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def run_wrk(base_url, paths_file, *, threads, connections, duration, until=None):
    """wrk for `duration` seconds; with `until` (a background process), for at least that
    long and until AFTER seconds after the process ends, so that a row covers what the
    process's end costs readers (an import's commit renews every page)."""
    command = [
        "wrk",
        f"--threads={threads}",
        f"--connections={connections}",
        f"--duration={STEP_TIMEOUT if until else duration}s",
        "--timeout=30s",
        f"--script={ROOT / 'bench' / 'load.lua'}",
        base_url,
        "--",
        str(paths_file),
    ]
    began = time.monotonic()
    wrk = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        if until is not None:
            while until.poll() is None and time.monotonic() - began < STEP_TIMEOUT:
                time.sleep(0.2)
            ended = time.monotonic() - began
            time.sleep(max(AFTER, duration - ended))
            wrk.send_signal(signal.SIGINT)  # wrk stops and reports what it measured
        stdout, stderr = wrk.communicate(timeout=STEP_TIMEOUT + 120)
    except BaseException:  # stopped (Ctrl-C) or timed out: wrk goes too
        wrk.kill()
        wrk.wait()
        raise
    latencies = re.search(r"^LOAD-LATENCIES (\[.*\])$", stdout, re.M)
    shown = stdout.replace(latencies.group(0), "") if latencies else stdout
    print(shown.strip(), stderr, sep="\n", file=sys.stderr)
    match = re.search(r"^LOAD-RESULT (\{.*\})$", stdout, re.M)
    if wrk.returncode != 0 or not match:
        raise SystemExit(f"wrk failed (status {wrk.returncode})")
    result = json.loads(match.group(1))
    result["latencies"] = json.loads(latencies.group(1)) if latencies else []
    if until is not None:
        result["background_s"] = ended
    return result


def start(args, env, log):
    # Its output goes to a file, not a pipe: nothing reads a pipe while the row runs, and an
    # import that says much (its possible duplicates) would block on a full one, unfinished.
    output = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 (closed by finish)
    process = subprocess.Popen(
        args,
        cwd=ROOT,
        env=env,
        stdout=output,
        stderr=log,
        text=True,
        start_new_session=True,  # its own group: stopped as a whole, not by Ctrl-C
    )
    process.output = output
    return process


def start_when_ready(args, env, log, ready, deadline=STEP_TIMEOUT):
    """A writer started with `--ready <ready>` (bench/writer.py), once it is: set up and
    past its first change, waiting for SIGUSR1, which the caller sends as its measure
    begins."""
    ready.unlink(missing_ok=True)
    process = start([*args, "--ready", str(ready)], env, log)
    wait_until_ready(process, ready, deadline)
    return process


def wait_until_ready(process, ready, deadline=STEP_TIMEOUT):
    """Until a writer has created `ready` (it waits for a signal), or fail the run."""
    stop_at = time.monotonic() + deadline
    while not ready.exists():
        if process.poll() is not None:
            finish(process, "the writer")  # (fails the run, with its status)
        if time.monotonic() > stop_at:
            stop(process)
            raise SystemExit(f"the writer was not ready within {deadline} s")
        time.sleep(0.05)


class Editors:
    """Several writers (bench/writer.py) at once, each on its share of the cases at its
    share of the rate, told together when to work: `begin` starts a slice of changes in
    each, `wait` waits until each has finished its slice, `end` ends them and gives what
    each did (its WRITES)."""

    def __init__(self, args, env, log, folder, count, rate=1.0):
        self.readies = [Path(folder) / f"writer-{index}-ready" for index in range(count)]
        self.processes = []
        for index, ready in enumerate(self.readies):
            share = ["--share", f"{index}/{count}", "--rate", str(rate / count)]
            self.processes.append(start_when_ready([*args, *share], env, log, ready))

    def begin(self):
        for process, ready in zip(self.processes, self.readies, strict=True):
            ready.unlink()
            process.send_signal(signal.SIGUSR1)

    def wait(self):
        for process, ready in zip(self.processes, self.readies, strict=True):
            wait_until_ready(process, ready)

    def end(self, what):
        for process in self.processes:
            process.send_signal(signal.SIGUSR2)
        return [writes_of(finish(process, what)) for process in self.processes]

    def stop(self):
        for process in self.processes:
            stop(process)


def finish(process, what, timeout=STEP_TIMEOUT):
    """Wait for a background writer or import; its output, or fail the run."""
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop(process)
        raise SystemExit(f"{what} did not finish") from None
    with process.output:
        process.output.seek(0)
        output = process.output.read()
    if process.returncode != 0:
        raise SystemExit(f"{what} failed (status {process.returncode})")
    return output


def rendered_ahead_of(output):
    """What an import said of the most-read pages it rendered before its commit
    (`import_cases` prints it; cases.rendering_ahead), for its row's note: how many pages
    readers did not have to render after the commit."""
    found = re.search(r"^Most-read pages rendered before the commit: (.*)$", output, re.M)
    return f"pages rendered ahead: {found.group(1)}" if found else "no page rendered ahead"


def writes_of(output):
    """The WRITES figures a writer printed (bench/writer.py)."""
    return json.loads(re.search(r"^WRITES (\{.*\})$", output, re.M).group(1))
