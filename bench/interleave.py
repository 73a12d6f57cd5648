#!/usr/bin/env python3
"""Interleaved timing of a few commands, for noisy shared machines.

hyperfine runs all of one command's iterations, then the next command's: a
burst of load on the machine lands on one command only. This runs them in
rounds instead (each round: every command, in a fresh random order, a few
times), so every command sees the same machine, and reports per command the
median wall time and the median CPU time (user + system of the child) over
all runs, with the difference to the first command.

    bench/interleave.py [--rounds N] [--per-round K] [--cwd DIR] \
        'NAME=command line' 'NAME:BASE=command line' ...

Each command is compared with the one named BASE (default: the first).
`--prepare 'NAME=command line'` runs that command, untimed, before each
timed run of NAME; `--stdin 'NAME=FILE'` gives NAME that file as its input
(else /dev/null); `--cwd-of 'NAME=DIR'` runs NAME (and its --prepare) in
DIR instead of --cwd; `--env 'NAME=VAR=VALUE'` sets VAR for NAME (and its
--prepare) only; `--json FILE` also writes the medians there, as
`{"NAME": {"wall_ms": ..., "cpu_ms": ..., "runs": ...}}`, for scripts that
derive a figure from several rows.
Commands are split on blanks (no shell). stdout and stderr go to /dev/null;
with BENCH_CHECK=1 in the environment, a command (or a --prepare) that
exits non-zero stops the run with its stderr.
"""
import argparse
import json
import os
import random
import resource
import shlex
import statistics
import subprocess
import time


def run_once(argv, cwd, stdin=None, env=None):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, input=stdin, env=env,
                          stdin=None if stdin is not None else subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0 and os.environ.get("BENCH_CHECK"):
        raise SystemExit(f"{' '.join(argv)}: exit {done.returncode}\n"
                         + done.stderr.decode(errors="replace"))
    return wall, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--per-round", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--cwd", default=os.getcwd())
    ap.add_argument("--prepare", action="append", default=[])
    ap.add_argument("--stdin", action="append", default=[])
    ap.add_argument("--json")
    ap.add_argument("--cwd-of", action="append", default=[])
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("commands", nargs="+")
    args = ap.parse_args()
    cmds, bases = [], {}
    for c in args.commands:
        name, _, line = c.partition("=")
        name, _, base = name.partition(":")
        cmds.append((name, shlex.split(line)))
        bases[name] = base or cmds[0][0]
    prepare = {}
    for p in args.prepare:
        name, _, line = p.partition("=")
        prepare[name] = shlex.split(line)

    inputs = {}
    for p in args.stdin:
        name, _, path = p.partition("=")
        with open(path, "rb") as f:
            inputs[name] = f.read()

    cwds = {}
    for p in args.cwd_of:
        name, _, path = p.partition("=")
        cwds[name] = path
    envs = {}
    for p in args.env:
        name, _, pair = p.partition("=")
        var, _, value = pair.partition("=")
        envs.setdefault(name, dict(os.environ))[var] = value

    def timed(name, argv):
        cwd, env = cwds.get(name, args.cwd), envs.get(name)
        if name in prepare:
            run_once(prepare[name], cwd, env=env)
        return run_once(argv, cwd, inputs.get(name), env)

    for name, argv in cmds:
        for _ in range(args.warmup):
            timed(name, argv)
    walls = {name: [] for name, _ in cmds}
    cpus = {name: [] for name, _ in cmds}
    for _ in range(args.rounds):
        order = cmds[:]
        random.shuffle(order)
        for name, argv in order:
            for _ in range(args.per_round):
                w, c = timed(name, argv)
                walls[name].append(w)
                cpus[name].append(c)
    runs = args.rounds * args.per_round
    print(f"| {runs} runs each, interleaved | vs | median wall | median CPU (user+sys) |")
    print("|---|---|---|---|")
    for name, _ in cmds:
        base = bases[name]
        bw, bc = statistics.median(walls[base]), statistics.median(cpus[base])
        w, c = statistics.median(walls[name]), statistics.median(cpus[name])
        vs = "" if base == name else base
        print(f"| {name} | {vs} | {w*1e3:.2f} ms ({(w-bw)*1e3:+.2f}, {w/bw:.2f}x) "
              f"| {c*1e3:.2f} ms ({(c-bc)*1e3:+.2f}, {c/bc:.2f}x) |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({name: {"wall_ms": statistics.median(walls[name]) * 1e3,
                              "cpu_ms": statistics.median(cpus[name]) * 1e3,
                              "runs": runs} for name, _ in cmds}, f)


if __name__ == "__main__":
    main()
