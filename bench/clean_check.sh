#!/usr/bin/env bash
# The pre-destructive check on a clean tree: `git checkout -- .`,
# `git reset --hard` and `git checkout -- <one file>` by the real git and
# through the shim (an agent on its own branch; nothing to lose, so no
# checkpoint is taken), interleaved
# (bench/interleave.py), on trees of 1,000, 5,000 and 20,000 files whose
# index is newer than their files (git trusts its stat cache), with
# `git status -uno` (git's own check) as a reference.
#
#   bench/clean_check.sh [path/to/git-ward [path/to/another/git-ward]]
#
# A second binary (say, the previous build) gets rows of its own in the
# same run. SIZES="1000 20000" and ROUNDS=15 (3 runs per round) adjust it.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
git="${WARD_REAL_GIT:-/usr/local/bin/git}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
lay() { # source destination: written in one piece, as ./install does
  mkdir -p "$(dirname "$2")"
  dd if="$1" of="$2" bs=67108864 status=none
  chmod +x "$2"
}
lay "${1:-$here/target/release/git-ward}" "$work/a/git"
[ -n "${2:-}" ] && lay "$2" "$work/b/git"

export HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 WARD_REAL_GIT="$git" WARD_CONTRACT=c1
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@x GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@x
mkdir -p "$HOME"

for files in ${SIZES:-1000 5000 20000}; do
  dir="$work/r-$files"
  "$git" init -q -b main "$dir"
  (cd "$dir" && python3 "$here/bench/tree.py" "$files"
  "$git" add -A && "$git" commit -q -m init && "$git" switch -q -c agent/c1
  # Files an hour older than the index: no entry is racy.
  find . -path ./.git -prune -o -exec touch -h -d '1 hour ago' {} +
  "$git" update-index -q --refresh)
  cmds=(
    "checkout -- .=$git checkout -- ."
    "shim checkout -- .:checkout -- .=$work/a/git checkout -- ."
    "reset --hard=$git reset -q --hard"
    "shim reset --hard:reset --hard=$work/a/git reset -q --hard"
    "status -uno:checkout -- .=$git status -uno --porcelain"
    "checkout -- one=$git checkout -- src/d0000/f000000.txt"
    "shim checkout -- one:checkout -- one=$work/a/git checkout -- src/d0000/f000000.txt"
  )
  if [ -n "${2:-}" ]; then
    cmds+=(
      "shim 2 checkout -- .:checkout -- .=$work/b/git checkout -- ."
      "shim 2 reset --hard:reset --hard=$work/b/git reset -q --hard"
      "shim 2 checkout -- one:checkout -- one=$work/b/git checkout -- src/d0000/f000000.txt"
    )
  fi
  echo "### $files files"
  python3 "$here/bench/interleave.py" --rounds "${ROUNDS:-15}" --per-round 3 --warmup 2 \
    --cwd "$dir" "${cmds[@]}"
  echo "checkpoints in the repository afterwards: $("$git" -C "$dir" for-each-ref refs/ward/checkpoints/ | wc -l)"
  rm -rf "$dir"
done
