#!/usr/bin/env bash
# Sessions and lanes (SPEC section 11), interleaved (bench/interleave.py):
#
# 1. `git ward run --worktree --contract c -- true` making its lane on a
#    20,000-file repository, against `git worktree add -b agent/c` plus
#    `true` (in one `sh -c`); each timed run after removing the worktree
#    and its branch (untimed). `run-reuse` is a second session in a lane
#    that exists.
# 2. The shim on a mutating command (`git config`, which runs no hook) in
#    a worktree a live session leases, against the same in a lane nobody
#    leases (the lease is read for commands that change something only).
#
#   bench/fleets.sh [BINARY]      ROUNDS=10 FILES=20000 SHIM_ROUNDS=60
set -euo pipefail
bin=$(realpath "${1:-$(dirname "$0")/../target/release/git-ward}")
here=$(dirname "$(realpath "$0")")
tmp=$(mktemp -d)
sleeper=""
cleanup() {
  [ -z "$sleeper" ] || kill "$sleeper" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp" # never in the repository this is run from
export HOME=$tmp/home GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@e \
  GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@e TZ=UTC
unset WARD_CONTRACT WARD_SESSION
mkdir -p "$HOME"
git=$(command -v git)
echo "git: $("$git" --version), binary: $bin, load: $(cut -d' ' -f1-3 /proc/loadavg)"

make_repo() { # dir files
  mkdir -p "$1"
  (cd "$1" && git init -q -b main && python3 "$here/tree.py" "$2" &&
    git add . && git commit -qm init && "$bin" install >/dev/null)
}

echo
echo "## run --worktree, ${FILES:-20000} files"
make_repo "$tmp/big" "${FILES:-20000}"
"$bin" install --shim >/dev/null
drop='sh -c "git worktree remove --force ../lanes/c >/dev/null 2>&1; git branch -q -D agent/c >/dev/null 2>&1; true"'
cd "$tmp/big"
"$bin" run --worktree "$tmp/lanes/r" --contract r -- true 2>/dev/null
python3 "$here/interleave.py" --rounds "${ROUNDS:-10}" --per-round 1 --warmup 1 --cwd "$tmp/big" \
  --prepare "worktree-add=$drop" --prepare "run-worktree=$drop" \
  "worktree-add=sh -c \"$git worktree add -q -b agent/c ../lanes/c HEAD && true\"" \
  "run-worktree=$bin run --worktree $tmp/lanes/c --contract c -- true" \
  "run-reuse=$bin run --worktree --contract r -- true"

echo
echo "## the shim, mutating, leased or not (10 files)"
make_repo "$tmp/small" 10
cd "$tmp/small"
# Two lanes alike (each on its agent branch), one held by a live session.
"$bin" run --worktree "$tmp/lanes/free" --contract b -- true 2>/dev/null
"$bin" run --worktree "$tmp/lanes/held" --contract a -- sleep 3600 2>/dev/null &
sleeper=$!
lease() { [ -e "$(git -C "$tmp/lanes/held" rev-parse --git-dir 2>/dev/null)/ward/lease" ]; }
for _ in $(seq 100); do lease && break; sleep 0.1; done
lease || { echo "no lease on $tmp/lanes/held" >&2; exit 1; }
shim=$("$bin" install --shim --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["shim_dir"])')/git
export WARD_CONTRACT=a
python3 "$here/interleave.py" --rounds "${SHIM_ROUNDS:-60}" --per-round 5 --cwd "$tmp/small" \
  "unleased=$shim -C $tmp/lanes/free config bench.x 1" \
  "leased=$shim -C $tmp/lanes/held config bench.x 1" \
  "git=$git -C $tmp/lanes/free config bench.x 1"
