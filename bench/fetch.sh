#!/usr/bin/env bash
# What git-ward's hooks cost a fetch of many tags from a local bare
# repository, with hyperfine: the same fetch in clones that differ only in
# their hooks, by the real git and by an agent through the shim.
#   none   no hooks
#   hooks  `git ward install`, the real git (a person, or an agent's git by path)
#   shim   `git ward install`, git run through the shim (an agent)
# Prints the median wall time and the mean CPU time (user + system, children's
# rusage, from hyperfine's JSON) per variant.
# usage: bench/fetch.sh [GIT] [WARD] [TAGS...]   (default TAGS: 100 10000)
#   RUNS=10 runs for 100 tags or fewer, RUNS_BIG=3 above; results in $OUT (default ./fetch-bench)
set -euo pipefail
GIT=${1:-/usr/local/bin/git}
WARD=$(realpath "${2:-target/release/git-ward}")
shift $(( $# > 2 ? 2 : $# ))
SIZES=${*:-100 10000}
OUT=$(realpath -m "${OUT:-fetch-bench}"); mkdir -p "$OUT"
B=$(mktemp -d /tmp/wardfetch.XXXX)
export HOME=$B GIT_CONFIG_NOSYSTEM=1 XDG_CONFIG_HOME=$B/.config
export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b
unset WARD_AGENT WARD_CONTRACT CLAUDECODE
mkdir "$B/shim"; ln -s "$WARD" "$B/shim/git"
V=$("$GIT" --version | cut -d' ' -f3)
for n in $SIZES; do
  src=$B/src-$n.git
  "$GIT" init -q --bare -b main "$src"
  c=$("$GIT" -C "$src" commit-tree -m one "$("$GIT" -C "$src" mktree </dev/null)")
  { echo "create refs/heads/main $c"; for i in $(seq 1 "$n"); do echo "create refs/tags/v$i $c"; done; } \
    | "$GIT" -C "$src" update-ref --stdin
  for v in none hooks; do
    d=$B/$v-$n
    "$GIT" init -q -b agent/c1 "$d"
    "$GIT" -C "$d" remote add origin "$src"
    "$GIT" -C "$d" fetch -q --no-tags origin main
    [ $v = none ] || (cd "$d" && "$WARD" install >/dev/null)
  done
  printf '#!/bin/sh\n%s -C "$1" for-each-ref --format="delete %%(refname)" refs/tags | %s -C "$1" update-ref --stdin\n' "$GIT" "$GIT" > "$B/untag"
  chmod +x "$B/untag"
  runs=${RUNS:-10}; [ "$n" -le 100 ] || runs=${RUNS_BIG:-3}
  fetch="fetch -q origin refs/tags/*:refs/tags/*"
  hyperfine -N --runs "$runs" --warmup "${WARMUP:-1}" \
    --export-markdown "$OUT/git-$V-$n.md" --export-json "$OUT/git-$V-$n.json" \
    --prepare "$B/untag $B/none-$n" -n "no hooks" "env PATH=$PATH $GIT -C $B/none-$n $fetch" \
    --prepare "$B/untag $B/hooks-$n" -n "git-ward hooks, real git" "env PATH=$PATH $GIT -C $B/hooks-$n $fetch" \
    --prepare "$B/untag $B/hooks-$n" -n "git-ward hooks, agent through the shim" "env PATH=$B/shim:$PATH WARD_REAL_GIT=$GIT git -C $B/hooks-$n $fetch"
  # CPU time (user + system, children included): steadier than wall time on a busy machine.
  python3 - "$OUT/git-$V-$n.json" <<'PY'
import json, statistics, sys
res = json.load(open(sys.argv[1]))["results"]
base = res[0]["user"] + res[0]["system"]
print("| variant | median wall [ms] | mean CPU [ms] | CPU vs no hooks |")
print("|:---|---:|---:|---:|")
for r in res:
    cpu = r["user"] + r["system"]
    print(f"| {r['command']} | {statistics.median(r['times'])*1000:.0f} | {cpu*1000:.0f} | {cpu/base:.2f}x |")
PY
done
rm -rf "$B"
