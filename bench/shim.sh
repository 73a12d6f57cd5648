#!/usr/bin/env bash
# Shim overhead, measured side by side in one hyperfine run per repository:
# `git status` and `git rev-parse HEAD` through the shim vs the real git, on
# a small repository and on a 20,000-file one; plus `git-ward explain` vs
# `git rev-parse HEAD`, and the number of git processes a read-only command
# starts through the shim (strace).
#
#   bench/shim.sh [path/to/git-ward]      (default: target/release/git-ward)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
ward="${1:-$here/target/release/git-ward}"
git="${WARD_REAL_GIT:-/usr/local/bin/git}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 WARD_REAL_GIT="$git"
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@x GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@x
mkdir -p "$HOME" "$work/shim"
ln -s "$ward" "$work/shim/git"

make_repo() { # dir files
  "$git" init -q -b main "$1"
  (cd "$1" && python3 - "$2" <<'PY'
import os, sys
n = int(sys.argv[1])
for i in range(n):
    d = f"d{i // 500:03d}"
    os.makedirs(d, exist_ok=True)
    with open(f"{d}/f{i:05d}.txt", "w") as f:
        f.write(f"file {i}\n")
PY
  "$git" add -A && "$git" commit -q -m init && "$git" switch -q -c feat)
}
make_repo "$work/small" 10
make_repo "$work/large" 20000

for repo in small large; do
  cd "$work/$repo"
  "$git" status >/dev/null # warm the index stat cache
  hyperfine -N --warmup 20 --runs "${RUNS:-300}" --export-markdown "$work/$repo.md" \
    -n "git rev-parse HEAD" "$git rev-parse HEAD" \
    -n "shim rev-parse HEAD" "$work/shim/git rev-parse HEAD" \
    -n "git status" "$git status" \
    -n "shim status" "$work/shim/git status" \
    -n "git-ward explain" "$ward explain -- commit -m x" >/dev/null
  echo "### $repo repository ($(git ls-files | wc -l) files)"
  echo
  cat "$work/$repo.md"
  echo
done

cd "$work/small"
if command -v strace >/dev/null; then
  strace -f -qq -e trace=execve -o "$work/trace" "$work/shim/git" status >/dev/null
  echo "execve calls for \`git status\` through the shim: $(grep -c 'execve(' "$work/trace") (the shim itself, then the real git by exec: no child process)"
fi
