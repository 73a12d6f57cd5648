#!/usr/bin/env bash
# Shim overhead, measured side by side in one hyperfine run per repository:
# `git status` and `git rev-parse HEAD` through the shim vs the real git, on
# a small repository and on a 20,000-file one; plus `git-ward explain` vs
# `git rev-parse HEAD`, and the number of git processes a read-only command
# starts through the shim (strace).
#
#   bench/shim.sh [path/to/git-ward [path/to/another/git-ward]]
#
# The default binary is target/release/git-ward; a second one (say, the
# static build that ./install makes) gets rows of its own in the same run.
# IN=d000 runs every command from that subdirectory of each repository.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
ward="$(realpath "${1:-$here/target/release/git-ward}")"
other="${2:+$(realpath "$2")}"
git="${WARD_REAL_GIT:-/usr/local/bin/git}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 WARD_REAL_GIT="$git"
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@x GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@x
mkdir -p "$HOME" "$work/shim" "$work/shim2"
ln -s "$ward" "$work/shim/git"
[ -n "$other" ] && ln -s "$other" "$work/shim2/git"

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
  cd "$work/$repo/${IN:-.}"
  "$git" status >/dev/null # warm the index stat cache
  "$work/shim/git" status >/dev/null # fill the settings cache
  extra=()
  if [ -n "$other" ]; then
    extra=(-n "shim (2nd binary) rev-parse HEAD" "$work/shim2/git rev-parse HEAD"
           -n "shim (2nd binary) status" "$work/shim2/git status")
  fi
  hyperfine -N --warmup 20 --runs "${RUNS:-300}" --export-markdown "$work/$repo.md" \
    --export-json "$work/$repo.json" \
    -n "git rev-parse HEAD" "$git rev-parse HEAD" \
    -n "shim rev-parse HEAD" "$work/shim/git rev-parse HEAD" \
    -n "git status" "$git status" \
    -n "shim status" "$work/shim/git status" \
    -n "git-ward explain" "$ward explain -- commit -m x" \
    -n "git commit (mutating, child)" "$git commit -q --allow-empty -m x" \
    -n "shim commit (mutating, child)" "$work/shim/git commit -q --allow-empty -m x" \
    "${extra[@]}" >/dev/null
  echo "### $repo repository ($("$git" ls-files :/ | wc -l) files)"
  echo
  cat "$work/$repo.md"
  echo
  python3 - "$work/$repo.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
def row(a, b):
    if a in r and b in r:
        ma, mb = r[a]["median"] * 1e3, r[b]["median"] * 1e3
        ca = (r[a]["user"] + r[a]["system"]) * 1e3
        cb = (r[b]["user"] + r[b]["system"]) * 1e3
        print(f"| {b} vs {a} | {mb - ma:+.2f} ms ({mb / ma:.2f}x) | {cb - ca:+.2f} ms ({cb / ca:.2f}x) |")
print("| added by the shim | median wall | mean CPU (user+sys) |")
print("|---|---|---|")
row("git rev-parse HEAD", "shim rev-parse HEAD")
row("git status", "shim status")
row("git commit (mutating, child)", "shim commit (mutating, child)")
row("git rev-parse HEAD", "shim (2nd binary) rev-parse HEAD")
row("git status", "shim (2nd binary) status")
row("git rev-parse HEAD", "git-ward explain")
PY
  echo
done

cd "$work/small"
if command -v strace >/dev/null; then
  strace -f -qq -e trace=execve -o "$work/trace" "$work/shim/git" status >/dev/null
  echo "execve calls for \`git status\` through the shim: $(grep -c 'execve(' "$work/trace") (the shim itself, then the real git by exec: no child process)"
fi
