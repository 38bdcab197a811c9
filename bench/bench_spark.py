"""Benchmark: ``rankmetrics evaluate --engine spark`` on Parquet folders, on a local Spark.

For each number of users (default 1, 2 and 4 million) the data set is written as folders of
Parquet files, a million users a file (``common.write_upload``: 100 recommended items and 20
rated items per user, one model), then the command line runs end to end, the way users run it:

    python -m rankmetrics evaluate --engine spark --truth 'DATA/part-*/ground_truth.parquet'
        --run strong='DATA/part-*/strong.parquet' --max-cutoff 100 --save BUNDLE

every metric at every K 1..100, with Spark on ``local[2]`` and a bundle saved. It reports the
seconds (wall, and the CPU seconds of every process it started; and the machine's load average
after it, since a shared machine slows it), the peak memory of the driver (the Python
process), of the JVM (in local mode the driver's and the executors' JVM are one) and of the
Python workers the executors run (the largest sum at one moment), the per-million-users cost
(linear growth keeps it flat), and the bundle's size. At the first size it also runs the
single-machine command line on the same files (one file per input at a million users) with
``--save``, for Spark's overhead.

    python bench/bench_spark.py                        # 1M, 2M, 4M users
    python bench/bench_spark.py --users 1000000 --driver-memory 6g
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import GIB, ROOT, print_table, write_upload

USERS_PER_FILE = 1_000_000
MODEL = {"strong": 4.0}


def write_data(folder: Path, n_users: int) -> Path:
    """The data set as ``part-K/`` folders of USERS_PER_FILE users each (files reused)."""
    for part, first in enumerate(range(0, n_users, USERS_PER_FILE)):
        write_upload(folder / f"part-{part}", min(USERS_PER_FILE, n_users - first), seed=part,
                     models=MODEL, first_user=first)
    return folder


def _children(pid: int) -> list[int]:
    """The process's children, started by any of its threads (the JVM starts its Python
    workers from threads of its own)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def _cpu_seconds(pid: int) -> float:
    """The process's CPU seconds so far (user and system; 0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss(pid: int) -> tuple[str, int]:
    """The process's command name and resident bytes (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/comm") as comm, open(f"/proc/{pid}/statm") as statm:
            return comm.read().strip(), int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return "", 0


class TreeMemory:
    """Samples the resident memory of a process and its descendants every 0.2 s: the peak
    of the process itself, of its JVM children and of the sum of the other Python processes
    (Spark's Python workers); and the CPU seconds of all of them (the last reading of each)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peaks = {"driver": 0, "jvm": 0, "workers": 0}
        self.cpu: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            now = {"driver": _rss(self.pid)[1], "jvm": 0, "workers": 0}
            self.cpu[self.pid] = max(self.cpu.get(self.pid, 0.0), _cpu_seconds(self.pid))
            todo = _children(self.pid)
            while todo:
                pid = todo.pop()
                self.cpu[pid] = max(self.cpu.get(pid, 0.0), _cpu_seconds(pid))
                name, rss = _rss(pid)
                now["jvm" if name == "java" else "workers"] += rss
                todo.extend(_children(pid))
            for key, value in now.items():
                self.peaks[key] = max(self.peaks[key], value)
            time.sleep(0.2)

    def stop(self) -> dict[str, float]:
        self._stop.set()
        self._thread.join()
        return {**self.peaks, "cpu": sum(self.cpu.values())}


def run_cli(arguments: list[str], environment: dict[str, str]
            ) -> tuple[float, dict[str, float]]:
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "rankmetrics", "evaluate", *arguments],
                               cwd=ROOT, env=environment, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    memory = TreeMemory(process.pid)
    _, errors = process.communicate()
    seconds = time.perf_counter() - started
    peaks = memory.stop()
    if process.returncode:
        raise SystemExit(f"rankmetrics evaluate failed:\n{errors[-3000:]}")
    return seconds, peaks


def folder_bytes(path: Path) -> int:
    return sum(file.stat().st_size for file in path.rglob("*") if file.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", default="1000000,2000000,4000000",
                        help="comma-separated numbers of users (default: %(default)s)")
    parser.add_argument("--driver-memory", default="6g", help="Spark's driver (JVM) memory")
    parser.add_argument("--data", type=Path, help="where to write the data (default: a "
                        "temporary folder; files already there are reused)")
    parser.add_argument("--skip-single", action="store_true",
                        help="leave out the single-machine run at the first size")
    args = parser.parse_args()
    sizes = [int(part) for part in args.users.split(",")]
    environment = dict(os.environ, PYSPARK_PYTHON=sys.executable,
                       PYSPARK_SUBMIT_ARGS=f"--master local[2] --driver-memory "
                       f"{args.driver_memory} --conf spark.ui.enabled=false pyspark-shell")
    with tempfile.TemporaryDirectory() as scratch:
        data = args.data or Path(scratch) / "data"
        rows = []
        for n_users in sizes:
            folder = write_data(data / f"users-{n_users}", n_users)
            bundle = Path(scratch) / f"bundle-{n_users}"
            seconds, peaks = run_cli(
                ["--engine", "spark", "--truth", str(folder / "part-*" / "ground_truth.parquet"),
                 "--run", f"strong={folder / 'part-*' / 'strong.parquet'}",
                 "--max-cutoff", "100", "--save", str(bundle)], environment)
            size = folder_bytes(bundle)
            rows.append((f"{n_users:,}", "spark local[2]", f"{seconds:.1f}",
                         f"{peaks['cpu']:.0f}", f"{os.getloadavg()[0]:.1f}",
                         f"{seconds / n_users * 1e6:.1f}", f"{peaks['driver'] / GIB:.2f}",
                         f"{peaks['jvm'] / GIB:.2f}", f"{peaks['workers'] / GIB:.2f}",
                         f"{size / 2**20:.1f}", f"{size / n_users:.1f}"))
            print(*rows[-1], sep=" | ", flush=True)
            if n_users == sizes[0] <= USERS_PER_FILE and not args.skip_single:
                part = folder / "part-0"
                single, peaks = run_cli(
                    ["--truth", str(part / "ground_truth.parquet"),
                     "--run", f"strong={part / 'strong.parquet'}", "--max-cutoff", "100",
                     "--save", str(Path(scratch) / "single")], environment)
                rows.append((f"{n_users:,}", "single machine", f"{single:.1f}",
                             f"{peaks['cpu']:.0f}", f"{os.getloadavg()[0]:.1f}",
                             f"{single / n_users * 1e6:.1f}", f"{peaks['driver'] / GIB:.2f}",
                             "-", "-", f"{folder_bytes(Path(scratch) / 'single') / 2**20:.1f}",
                             "-"))
                print(*rows[-1], f"(spark / single: {seconds / single:.2f}x)", sep=" | ",
                      flush=True)
    print_table(["users", "engine", "seconds", "CPU seconds", "load (1 min) after",
                 "s per 1M users", "driver GiB", "JVM GiB",
                 "Python workers GiB", "bundle MiB", "bundle bytes per user"], rows, left=2)


if __name__ == "__main__":
    main()
