#!/usr/bin/env bash
# How `git ward checkpoint` grows, against `git status --porcelain` (the
# floor: both look at every file), interleaved (bench/interleave.py):
# 1k, 20k and 100k files with 10 modified + 10 new; 20k files with 100+100
# and 1000+1000. Each run adds a checkpoint (retention: checkpoint.keep).
#
#   bench/checkpoints.sh [path/to/git-ward]   (ROUNDS=10, 2 runs per round)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
ward="$(realpath "${1:-$here/target/release/git-ward}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export HOME="$work" GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@x GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@x

make_repo() { # dir files changed
  git init -q -b main "$1"
  (cd "$1" && python3 "$here/bench/tree.py" "$2"
  git add -A && git commit -q -m init && git switch -q -c feat
  python3 - "$2" "$3" <<'PY'
import os, sys
files, k = int(sys.argv[1]), int(sys.argv[2])
for j in range(k):
    i = j * (files // k)
    with open(f"src/d{i // 100:04d}/f{i:06d}.txt", "a") as f:
        f.write("more\n")
os.makedirs("new", exist_ok=True)
for j in range(k):
    with open(f"new/n{j}.txt", "w") as f:
        f.write(f"new {j}\n")
PY
  git status >/dev/null)
}

echo "| files | changed | status (median) | checkpoint (median) | ratio |"
echo "|---|---|---|---|---|"
for spec in "1000 10" "20000 10" "100000 10" "20000 100" "20000 1000"; do
  set -- $spec
  dir="$work/r-$1-$2"
  make_repo "$dir" "$1" "$2"
  python3 "$here/bench/interleave.py" --rounds "${ROUNDS:-10}" --per-round 2 --warmup 2 \
    --cwd "$dir" "status=git status --porcelain" "checkpoint:status=$ward checkpoint" |
    awk -F'|' -v f="$1" -v k="$2" '
      /^\| status /     { split($4, s, " "); st = s[1] }
      /^\| checkpoint / { split($4, c, " "); r = $4; sub(/.*, /, "", r); sub(/\).*/, "", r)
                          printf "| %s | %s + %s | %s ms | %s ms | %s |\n", f, k, k, st, c[1], r }'
  rm -rf "$dir"
done
