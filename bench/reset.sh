#!/usr/bin/env bash
# What an agent pays for safety on a destructive command, interleaved
# (bench/interleave.py):
#
# 1. `git reset --hard` over CHANGED (10) modified files, by the real git
#    and by an agent through the shim (WARD_AGENT=1 on its own branch: the
#    pre-destructive check finds work to lose and takes its checkpoint),
#    on trees of SIZES (20,000 and 100,000) files. Before each timed run,
#    untimed and the same for every row (interleave.py's `--prepare`), the
#    same CHANGED files get one more line. For reference: `git status`.
# 2. `git ward checkpoint` against `git stash create` with STASH_CHANGED
#    (10,000) modified files in a tree of STASH_FILES (100,000); neither
#    touches the files, so nothing is prepared.
# 3. (`hold`) What holds on HOLD_FILES (100,000) files: `git ward
#    checkpoint` with 10 modified and 10 new files against `git status
#    --porcelain`; on the clean tree, an agent's `reset --hard` (the
#    pre-destructive check finds nothing to lose) and the real git's,
#    against `git diff --quiet` (the check's cost is the difference of
#    the two resets), and the shim's `git status` against the real git's.
#
#   bench/reset.sh [BINARY [SECOND_BINARY]]
#       SIZES="20000 100000" CHANGED=10 ROUNDS=10 STASH_FILES=100000
#       STASH_CHANGED=10000 STASH_ROUNDS=6 HOLD_FILES=100000 HOLD_ROUNDS=6
#       PARTS="reset stash hold"
#
# A second binary (say, the build before) gets rows of its own in the
# same run. Each binary is laid as ./install lays it (written in one piece).
# HOOKS=1 installs the first binary's hooks in the repositories (then the
# real git runs them too; a second binary's checkpoints would be refused
# by them, so it cannot be given).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
git="${WARD_REAL_GIT:-/usr/local/bin/git}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
lay() { # source destination
  mkdir -p "$(dirname "$2")"
  dd if="$1" of="$2" bs=67108864 status=none
  chmod +x "$2"
  mkdir "$(dirname "$2")/shim"
  ln -s ../git-ward "$(dirname "$2")/shim/git"
}
# The shim as `install --shim` makes it: a link named `git` to git-ward.
lay "${1:-$here/target/release/git-ward}" "$work/a/git-ward"
[ -n "${2:-}" ] && lay "$2" "$work/b/git-ward"
if [ -n "${2:-}" ] && [ "${HOOKS:-0}" = 1 ]; then
  echo "bench/reset.sh: HOOKS=1 takes one binary" >&2
  exit 2
fi

export HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 WARD_REAL_GIT="$git" TZ=UTC
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@x GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@x
unset WARD_AGENT WARD_CONTRACT WARD_SESSION
mkdir -p "$HOME"
echo "git: $("$git" --version), binary: ${1:-target/release/git-ward}${2:+, second: $2}, hooks: ${HOOKS:-0}"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"

make_repo() { # dir files
  "$git" init -q -b main "$1"
  (cd "$1" && python3 "$here/bench/tree.py" "$2" &&
    "$git" add -A && "$git" commit -q -m init && "$git" switch -q -c agent/c1 &&
    if [ "${HOOKS:-0}" = 1 ]; then "$work/a/git-ward" install >/dev/null; fi &&
    # Files an hour older than the index: no entry is racy.
    find . -path ./.git -prune -o -exec touch -h -d '1 hour ago' {} + &&
    "$git" update-index -q --refresh)
}

# The files `modify` changes: k of them, spread over the tree.
spread() { # files k
  python3 - "$1" "$2" <<'PY'
import sys
files, k = int(sys.argv[1]), int(sys.argv[2])
for j in range(k):
    i = j * (files // k)
    print(f"src/d{i // 100:04d}/f{i:06d}.txt")
PY
}

if [[ " ${PARTS:-reset stash hold} " == *" reset "* ]]; then
  for files in ${SIZES:-20000 100000}; do
    dir="$work/r-$files"
    make_repo "$dir" "$files"
    # One more line in each of the CHANGED files: one `sh`, no git.
    {
      echo '#!/bin/sh'
      spread "$files" "${CHANGED:-10}" | sed 's/.*/echo more >> &/'
    } >"$work/dirty-$files"
    chmod +x "$work/dirty-$files"
    prep=()
    cmds=(
      "reset --hard=$git reset -q --hard"
      "agent reset --hard:reset --hard=env WARD_AGENT=1 WARD_CONTRACT=c1 $work/a/shim/git reset -q --hard"
      "status:reset --hard=$git status --porcelain"
    )
    names=("reset --hard" "agent reset --hard" "status")
    if [ -n "${2:-}" ]; then
      cmds+=("agent reset --hard, 2nd:reset --hard=env WARD_AGENT=1 WARD_CONTRACT=c1 $work/b/shim/git reset -q --hard")
      names+=("agent reset --hard, 2nd")
    fi
    for name in "${names[@]}"; do
      prep+=(--prepare "$name=$work/dirty-$files")
    done
    echo
    echo "### reset --hard over ${CHANGED:-10} changed files, $files files"
    python3 "$here/bench/interleave.py" --rounds "${ROUNDS:-10}" --per-round 2 --warmup 2 \
      --cwd "$dir" "${prep[@]}" "${cmds[@]}"
    echo "checkpoints in the repository afterwards: $("$git" -C "$dir" for-each-ref refs/ward/checkpoints/ | wc -l)"
    rm -rf "$dir"
  done
fi

if [[ " ${PARTS:-reset stash hold} " == *" stash "* ]]; then
  files="${STASH_FILES:-100000}" changed="${STASH_CHANGED:-10000}"
  dir="$work/s-$files"
  make_repo "$dir" "$files"
  spread "$files" "$changed" | (cd "$dir" && while read -r f; do echo more >>"$f"; done)
  "$git" -C "$dir" status >/dev/null
  cmds=(
    "stash create=$git stash create"
    "checkpoint:stash create=$work/a/git-ward checkpoint"
  )
  [ -n "${2:-}" ] && cmds+=("checkpoint, 2nd:stash create=$work/b/git-ward checkpoint")
  echo
  echo "### checkpoint of $changed changed files, $files files"
  python3 "$here/bench/interleave.py" --rounds "${STASH_ROUNDS:-6}" --per-round 1 --warmup 1 \
    --cwd "$dir" "${cmds[@]}"
  rm -rf "$dir"
fi

if [[ " ${PARTS:-reset stash hold} " == *" hold "* ]]; then
  files="${HOLD_FILES:-100000}"
  dir="$work/h-$files"
  make_repo "$dir" "$files"
  agent="env WARD_AGENT=1 WARD_CONTRACT=c1"
  cmds=(
    "diff --quiet=$git diff --quiet"
    "reset --hard, clean:diff --quiet=$git reset -q --hard"
    "agent reset --hard, clean:diff --quiet=$agent $work/a/shim/git reset -q --hard"
    "status=$git status --porcelain"
    "agent status:status=$agent $work/a/shim/git status --porcelain"
  )
  [ -n "${2:-}" ] && cmds+=(
    "agent reset --hard, clean, 2nd:diff --quiet=$agent $work/b/shim/git reset -q --hard"
    "agent status, 2nd:status=$agent $work/b/shim/git status --porcelain"
  )
  echo
  echo "### a clean tree, $files files"
  python3 "$here/bench/interleave.py" --rounds "${HOLD_ROUNDS:-6}" --per-round 2 --warmup 1 \
    --cwd "$dir" "${cmds[@]}"
  echo "checkpoints in the repository afterwards: $("$git" -C "$dir" for-each-ref refs/ward/checkpoints/ | wc -l)"
  spread "$files" 10 | (cd "$dir" && while read -r f; do echo more >>"$f"; done)
  mkdir -p "$dir/new" && for j in 0 1 2 3 4 5 6 7 8 9; do echo "new $j" >"$dir/new/n$j.txt"; done
  "$git" -C "$dir" status >/dev/null
  cmds=(
    "status=$git status --porcelain"
    "checkpoint:status=$work/a/git-ward checkpoint"
  )
  [ -n "${2:-}" ] && cmds+=("checkpoint, 2nd:status=$work/b/git-ward checkpoint")
  echo
  echo "### checkpoint of 10 modified and 10 new files, $files files"
  python3 "$here/bench/interleave.py" --rounds "${HOLD_ROUNDS:-6}" --per-round 2 --warmup 1 \
    --cwd "$dir" "${cmds[@]}"
  rm -rf "$dir"
fi
