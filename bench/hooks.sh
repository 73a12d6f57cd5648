#!/usr/bin/env bash
# What git-ward's hooks cost: a commit (as a human, then as an agent with a
# contract) and a fetch of 100 tags, side by side in one run, in clones
# that differ only in their hooks:
#   none    no hooks
#   native  the same five hooks as a no-op native binary (the floor)
#   ward    `git ward install` (each hook starts git-ward by a `#!` line)
#   sh      the same from a path with a blank (the `/bin/sh` script form)
#   link    `git ward install --link`
#   ward2   `git ward install` with a second binary, if one is given
# usage: bench/hooks.sh [GIT] [WARD] [WARD2]   (RUNS=300 FRUNS=20 by default)
set -euo pipefail
GIT=${1:-/usr/local/bin/git}
WARD=$(realpath "${2:-target/release/git-ward}")
WARD2=${3:+$(realpath "$3")}
B=$(mktemp -d /tmp/wardbench.XXXX); cd "$B"
export HOME=$B GIT_CONFIG_NOSYSTEM=1 XDG_CONFIG_HOME=$B/.config
export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b
unset WARD_AGENT WARD_CONTRACT CLAUDECODE
printf 'int main(void){return 0;}\n' > noop.c && gcc -O2 -o noop noop.c
mkdir "with blank" && cp "$WARD" "with blank/git-ward"
$GIT init -q -b main src
for i in $(seq 1 100); do $GIT -C src commit -q --allow-empty -m $i; $GIT -C src tag v$i; done
printf '#!/bin/sh\ncd "$(dirname "$0")/$1" && t=$(%s tag) && [ -n "$t" ] && %s tag -d $t >/dev/null; exit 0\n' $GIT $GIT > deltags
chmod +x deltags
HOOKS="pre-commit prepare-commit-msg commit-msg pre-push reference-transaction"
VARIANTS="none native ward sh link${WARD2:+ ward2}"
for v in $VARIANTS; do
  $GIT clone -q src $v; $GIT -C $v tag -d $($GIT -C $v tag) >/dev/null
  $GIT -C $v checkout -q -b agent/c1
  case $v in
    native) for h in $HOOKS; do cp noop $v/.git/hooks/$h; done;;
    ward) (cd $v && "$WARD" install >/dev/null);;
    sh) (cd $v && "$B/with blank/git-ward" install >/dev/null);;
    link) (cd $v && "$WARD" install --link >/dev/null);;
    ward2) (cd $v && "$WARD2" install >/dev/null);;
  esac
done
cmds=(); for v in $VARIANTS; do cmds+=(-n "$v" "$GIT -C $B/$v commit -q --allow-empty -m x"); done
hyperfine -N -w 30 -r "${RUNS:-300}" --export-json "$B/human.json" "${cmds[@]}"
WARD_AGENT=1 WARD_CONTRACT=c1 hyperfine -N -w 30 -r "${RUNS:-300}" --export-json "$B/agent.json" "${cmds[@]}"
cmds=(); for v in $VARIANTS; do
  cmds+=(-n "$v" --prepare "$B/deltags $v" "$GIT -C $B/$v fetch -q --no-auto-gc origin refs/tags/*:refs/tags/*")
done
hyperfine -N -w 3 -r "${FRUNS:-20}" --export-json "$B/fetch.json" "${cmds[@]}"
# Median and mean CPU (user + system) of each, and the ratio to the floor.
python3 - "$B" <<'PY'
import json, sys
for what in ["human", "agent", "fetch"]:
    rs = json.load(open(f"{sys.argv[1]}/{what}.json"))["results"]
    cpu = {r["command"]: r["user"] + r["system"] for r in rs}
    med = {r["command"]: r["median"] for r in rs}
    floor_m, floor_c = med["native"], cpu["native"]
    print(f"{what:6}", "  ".join(f"{n}: {med[n]*1e3:.1f} ms ({med[n]/floor_m:.2f}x) cpu {cpu[n]*1e3:.1f} ({cpu[n]/floor_c:.2f}x)" for n in med))
PY
echo "results in $B"
