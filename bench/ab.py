"""A/B of the project's own benchmarks against another commit, in one sitting (prints figures).

The other commit is exported (``git archive``, no worktree bookkeeping in the shared
repository) into ``--trees`` and run with this checkout's interpreter; each side gets its
own database and Redis prefix (``<TELESRV_DB_NAME>_ab_<commit>`` for A, ``..._ab_b`` for
this checkout; Redis ``<prefix>ab<same>``: the two commits' migrations differ and neither
side may see the other's rows). Runs alternate
A B, B A, A B ... so drift in the box's load falls on both sides alike; the 1-minute load
average is printed before every run (the box is shared).

Printed: every run's figures, then per metric the median of each side, the ratio
B/A of the medians and the ratio of each pair (B is this checkout, A the other commit;
a CPU-per-send ratio above 1.0 means this checkout costs more).

    TELESRV_DB_NAME=telesrv_h44 TELESRV_REDIS_PREFIX=h44 \\
        .venv/bin/python bench/ab.py 4835dda --pairs 3 --bench loadgen --bench channels

Benchmarks (``--bench``, repeatable; extra arguments per benchmark with ``--args NAME=...``):
``loadgen`` (``--members 8 --seconds 10 --inflight 4``), ``channels`` (bench_channels.py
``--senders 8 --messages 150 --members 1000``), ``botapi`` (``--bots 100 --messages 5``).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NUM = r"([0-9]+(?:\.[0-9]+)?)"


@dataclass
class Bench:
    script: str
    args: str
    # metric name -> regex whose first group is the figure; lower is better unless listed in higher
    metrics: dict[str, str]
    higher: set[str] = field(default_factory=set)


BENCHES = {
    "loadgen": Bench(
        "bench/loadgen.py",
        "--members 8 --seconds 10 --inflight 4",
        {
            "throughput msg/s": rf"-> {NUM} msg/s",
            "server CPU ms/send": rf"= {NUM} ms per send;",
            "send p50 ms": rf"send latency p50 {NUM} ms",
            "send p99 ms": rf"send latency p50 [0-9.]+ ms, p99 {NUM} ms",
            "delivery p99 ms": rf"send->push p50 [0-9.]+ ms, p99 {NUM} ms",
            "PG CPU ms/send": rf"PostgreSQL CPU [0-9.]+s = {NUM} ms per send",
            "msgs/statement": rf"{NUM} messages per send statement",
        },
        {"throughput msg/s", "msgs/statement"},
    ),
    "channels": Bench(
        "bench/bench_channels.py",
        "--senders 8 --messages 150 --members 1000 --diff-calls 100",
        {
            "throughput msg/s": rf"-> {NUM} msg/s; latency",
            "send p50 ms": rf"msg/s; latency p50 {NUM} ms",
            "send p99 ms": rf"msg/s; latency p50 [0-9.]+ ms, p99 {NUM} ms",
            "server CPU s": rf"server process {NUM}s",
            "client CPU s": rf"clients \(this process\) {NUM}s",
            "difference p50 ms": rf"calls, p50 {NUM} ms",
            "post latency p50 ms": rf"post latency p50 {NUM} ms",
        },
        {"throughput msg/s"},
    ),
    "botapi": Bench(
        "bench/bench_botapi.py",
        "--bots 100 --messages 5",
        {
            "sendMessage msg/s": rf"s, {NUM} msg/s, p50",
            "sendMessage p50 ms": rf"msg/s, p50 {NUM} ms",
            "sendMessage p99 ms": rf"msg/s, p50 [0-9.]+ ms, p99 {NUM} ms",
            "Bot API CPU ms/call": rf"= {NUM} ms per sendMessage",
            "wake-up p50 ms": rf"from the user's send p50 {NUM} ms",
            "wake-up p99 ms": rf"from the user's send p50 [0-9.]+ ms, p99 {NUM} ms",
        },
        {"sendMessage msg/s"},
    ),
}


def load_average() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def export_tree(commit: str, trees: Path) -> tuple[str, Path]:
    """The other commit's files under ``trees/<sha>`` (made once), with the shared venv."""
    sha = subprocess.check_output(["git", "rev-parse", commit], cwd=ROOT, text=True).strip()
    tree = trees / sha[:12]
    if not (tree / "manage.py").exists():
        tree.mkdir(parents=True, exist_ok=True)
        archive = subprocess.Popen(["git", "archive", sha], cwd=ROOT, stdout=subprocess.PIPE)
        subprocess.check_call(["tar", "-x", "-C", str(tree)], stdin=archive.stdout)
        if archive.wait() != 0:
            raise SystemExit(f"git archive {sha} failed")
    venv = tree / ".venv"
    if not venv.exists():
        venv.symlink_to((ROOT / ".venv").resolve())
    return sha, tree


def side_env(side: str) -> dict[str, str]:
    """Side A's database is named after its commit (a database migrated by a newer
    commit may not suit an older one), side B's after this checkout."""
    env = dict(os.environ)
    base = env.get("TELESRV_DB_NAME", "telesrv_bench")
    prefix = env.get("TELESRV_REDIS_PREFIX", "bench")
    tag = _tags.get(side, side.lower())
    env["TELESRV_DB_NAME"] = f"{base}_ab_{tag}"
    env["TELESRV_REDIS_PREFIX"] = f"{prefix}ab{tag}"
    return env


_tags: dict[str, str] = {}


def vacuum_analyze(env: dict[str, str]) -> str:
    """Each side's database vacuumed and analyzed before a run: this box runs PostgreSQL
    with autovacuum off, and a database that took more runs (dead rows, statistics of
    the first run's near-empty tables) made its side's sends cost up to three times the
    PostgreSQL CPU and a starved listener more CPU per send. "" or why it was skipped."""
    import psycopg

    conninfo = {
        "dbname": env["TELESRV_DB_NAME"],
        "host": env.get("TELESRV_DB_HOST", "127.0.0.1"),
        "port": env.get("TELESRV_DB_PORT", "5432"),
        "user": env.get("TELESRV_DB_USER", "postgres"),
        "password": env.get("TELESRV_DB_PASSWORD", ""),
    }
    try:
        with psycopg.connect(**conninfo, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
    except psycopg.OperationalError as exc:
        if "does not exist" in str(exc):
            return "not vacuumed (not created yet: the benchmark creates it)"
        return f"not vacuumed ({' '.join(str(exc).split())[:160]})"
    return ""


def run_one(bench: Bench, tree: Path, side: str, extra: str, timeout: float) -> tuple[dict[str, float], str]:
    cmd = [sys.executable, str(tree / bench.script), *shlex.split(extra or bench.args)]
    skipped = vacuum_analyze(side_env(side))
    if skipped:
        print(f"    {side}: database {skipped}", flush=True)
    try:
        out = subprocess.run(
            cmd, cwd=tree, env=side_env(side), capture_output=True, text=True, timeout=timeout
        )
        text = out.stdout + (
            "" if out.returncode == 0 else f"\n[exit {out.returncode}]\n{out.stderr[-2000:]}"
        )
    except subprocess.TimeoutExpired as exc:
        text = f"{exc.stdout or ''}\n[timed out after {timeout:.0f}s]"
    figures = {}
    for name, pattern in bench.metrics.items():
        m = re.search(pattern, text)
        if m:
            figures[name] = float(m.group(1))
    return figures, text


def summarize(bench: Bench, runs: dict[str, list[dict[str, float]]]) -> None:
    print(f"{'metric':<22} {'A median':>10} {'B median':>10} {'B/A':>6}   per pair B/A")
    for name in bench.metrics:
        a = [r[name] for r in runs["A"] if name in r]
        b = [r[name] for r in runs["B"] if name in r]
        if not a or not b:
            continue
        ma, mb = statistics.median(a), statistics.median(b)
        pairs = [
            f"{rb[name] / ra[name]:.2f}" if ra.get(name) and name in rb else "-"
            for ra, rb in zip(runs["A"], runs["B"], strict=False)
        ]
        ratio = f"{mb / ma:.2f}" if ma else "-"
        better = "higher is better" if name in bench.higher else ""
        print(f"{name:<22} {ma:>10.2f} {mb:>10.2f} {ratio:>6}   {' '.join(pairs)}  {better}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("commit", help="side A: the commit to compare against (this checkout is side B)")
    ap.add_argument("--bench", action="append", choices=sorted(BENCHES), help="default: loadgen")
    ap.add_argument("--args", action="append", default=[], help="NAME=ARGS: a benchmark's own arguments")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument(
        "--trees",
        default=f"/tmp/telesrv-ab-{os.environ.get('TELESRV_REDIS_PREFIX', 'bench')}",
        help="where the other commit is exported (per Redis prefix: two people's exports never share a tree)",
    )
    ap.add_argument("--timeout", type=float, default=900, help="seconds per run")
    ap.add_argument("--verbose", action="store_true", help="print every run's whole output")
    ap.add_argument(
        "--same-bench",
        action="store_true",
        help="run this checkout's bench/*.py on both sides (a benchmark that gained a figure)",
    )
    args = ap.parse_args()
    if not os.environ.get("TELESRV_DB_NAME") or not os.environ.get("TELESRV_REDIS_PREFIX"):
        # Both sides derive their databases and Redis prefixes from these: unset, two
        # people's A/B runs would share (and drop) the same ones.
        raise SystemExit("set TELESRV_DB_NAME, TELESRV_REDIS_PREFIX (and TELESRV_REDIS_URL) first")
    extra = dict(a.split("=", 1) for a in args.args)
    sha, other = export_tree(args.commit, Path(args.trees))
    _tags.update(A=sha[:8], B="b")
    if args.same_bench:
        for script in (ROOT / "bench").glob("*.py"):
            shutil.copyfile(script, other / "bench" / script.name)
    here = subprocess.check_output(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, text=True).strip()
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=ROOT).returncode != 0
    trees = {"A": other, "B": ROOT}
    print(f"A = {sha[:12]} ({other}); B = {here}{' + uncommitted changes' if dirty else ''} ({ROOT})")
    print(
        f"{os.cpu_count()} cores; A uses {side_env('A')['TELESRV_DB_NAME']}, B {side_env('B')['TELESRV_DB_NAME']}"
    )
    for name in args.bench or ["loadgen"]:
        bench = BENCHES[name]
        print(f"\n== {name}: {bench.script} {extra.get(name, bench.args)}")
        runs: dict[str, list[dict[str, float]]] = {"A": [], "B": []}
        for i in range(args.pairs):
            for side in ("A", "B") if i % 2 == 0 else ("B", "A"):
                load = load_average()
                t0 = time.monotonic()
                figures, text = run_one(bench, trees[side], side, extra.get(name, ""), args.timeout)
                runs[side].append(figures)
                shown = ", ".join(f"{k} {v:g}" for k, v in figures.items())
                print(
                    f"pair {i + 1} {side}: load {load:.2f}, {time.monotonic() - t0:.0f}s: {shown}", flush=True
                )
                if args.verbose or not figures:
                    print("    " + text.strip().replace("\n", "\n    "))
        summarize(bench, runs)


if __name__ == "__main__":
    main()
