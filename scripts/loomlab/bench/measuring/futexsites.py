"""Where a server's futex calls are made (syscalls.py counts them): perf's record of every futex
call's stack during one run (`perf record -e syscalls:sys_enter_futex --call-graph dwarf -p PID`, the
JIT's frames named by the JVM's perf map, `jcmd PID Compiler.perfmap`), read per thread, per what
the call does (a wait, or a wake of a waiting thread) and per its site: the first frame past the C
library's and Go's futex plumbing (Parker::park, Unsafe_Unpark, runtime.stopm, ...). Copying each
call's stack slows the threads a little, so a recording gives the shares; the counts per request
are perf stat's, in the bench's runs. docs/results/2026-11-30-futex-sites.md records the commands.

    python -m loomlab.bench.measuring.futexsites SCRIPT --requests N [--threads DUMP] [--top K]

SCRIPT is `perf script -F comm,tid,ip,sym` of the recording (gzipped where it ends in .gz); DUMP
is `jcmd PID Thread.print` taken right after the run, which names the JVM's threads by their ids
(perf keeps 15 characters of a name)."""

from __future__ import annotations

import argparse
import gzip
import re
from collections import Counter
from pathlib import Path

# Frames of the futex plumbing itself, skipped to reach the site that asked for the call.
PLUMBING = ("__", "futex", "lll_", "pthread_", "runtime.futex", "runtime.note", "syscall", "[unknown]")
# What a call does, from the innermost frame that says it (__lll_lock_wake, futex_wait, notesleep).
DOES = re.compile(r"wake|wait|sleep", re.IGNORECASE)
HEADER = re.compile(r"^(?P<comm>.*?)\s+(?P<tid>\d+)\s*$")
THREAD = re.compile(r'^"(?P<name>[^"]*)".*\snid=(?P<nid>0x[0-9a-f]+|\d+)\s', re.MULTILINE)

# The JVM's way into a park or an unpark, skipped to reach the Java code that asked for it.
GLUE = ("Unsafe_", "void jdk.internal.misc.Unsafe.", "Interpreter")

Site = tuple[str, str, str, str]  # the thread, wait or wake, the site, its caller


def thread_names(dump: str) -> dict[int, str]:
    """A JVM's thread names by their system ids, from `jcmd PID Thread.print` (nid: hex before JDK 19)."""
    return {int(m["nid"], 0): m["name"] for m in THREAD.finditer(dump)}


def role(name: str) -> str:
    """A thread's name with its numbers as N: the pool's threads read as one."""
    return re.sub(r"\d+", "N", name)


def caller(frames: list[str]) -> str:
    """Who asked for the site: the first Java method past the JVM's glue (perf map names end in their
    parameters), or where none is (Go, or past a frame the unwinder could not leave), the next frame."""
    java = [f for f in frames if f.endswith(")") and " " in f and not f.startswith(GLUE)]
    return java[0] if java else next((f for f in frames if not f.startswith(GLUE)), "")


def sites(script: str, names: dict[int, str]) -> Counter[Site]:
    """Each recorded call counted by its thread (named by `names`, else by perf's comm), wait or
    wake, and its site; a sample of perf script is a header line, then its frames, innermost first."""
    counted: Counter[Site] = Counter()
    for sample in script.strip().split("\n\n"):
        lines = sample.strip().splitlines()
        header = HEADER.match(lines[0]) if lines else None
        if header is None:
            continue
        frames = [parts[1] for parts in (line.split(None, 1) for line in lines[1:]) if len(parts) == 2]
        thread = names.get(int(header["tid"]), header["comm"])
        said = next((m[0].lower() for m in map(DOES.search, frames) if m), "wait")
        call = "wake" if said == "wake" else "wait"
        at = next((i for i, frame in enumerate(frames) if not frame.startswith(PLUMBING)), len(frames))
        site = frames[at] if at < len(frames) else "(no frame)"
        counted[(role(thread), call, site, caller(frames[at + 1 :]))] += 1
    return counted


def table(counted: Counter[Site], requests: int, top: int) -> str:
    """The sites with the most calls as a Markdown table, per request and as a share of all calls."""
    total = sum(counted.values())
    rows = [
        "| thread | call | site | asked by | per request | share |",
        "|---|---|---|---|---|---|",
        *(
            f"| {thread} | {call} | `{site}` | {f'`{by}`' if by else ''} | {n / requests:.3f} | {n / total:.1%} |"
            for (thread, call, site, by), n in counted.most_common(top)
        ),
        f"| all | | | | {total / requests:.3f} | 100% |",
    ]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m loomlab.bench.measuring.futexsites", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("script", type=Path, help="perf script -F comm,tid,ip,sym of the recording")
    parser.add_argument("--requests", type=int, required=True, help="the requests the run answered")
    parser.add_argument("--threads", type=Path, help="jcmd PID Thread.print, taken right after the run")
    parser.add_argument("--top", type=int, default=10, help="how many sites (default 10)")
    args = parser.parse_args(argv)
    if args.requests < 1 or args.top < 1:
        parser.error("--requests and --top take a count of at least 1")
    names = thread_names(args.threads.read_text()) if args.threads else {}
    opener = gzip.open if args.script.suffix == ".gz" else open
    with opener(args.script, "rt", errors="replace") as script:
        print(table(sites(script.read(), names), args.requests, args.top))


if __name__ == "__main__":
    main()
