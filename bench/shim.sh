#!/usr/bin/env bash
# Shim overhead, measured interleaved (bench/interleave.py) per repository:
# `git status` and `git rev-parse HEAD` through the shim vs the real git (and
# vs a shim that only execs git: the floor; for a commit, vs one that runs
# git as a child and waits), on a small repository and on a
# 20,000-file one; plus `git-ward explain` vs `git rev-parse HEAD`, and the
# number of git processes a read-only command starts through the shim
# (strace).
#
#   bench/shim.sh [path/to/git-ward [path/to/another/git-ward]]
#   LAY2=cp bench/shim.sh BINARY BINARY   (the same binary in small pages)
#
# The default binary is target/release/git-ward; a second one (say, the
# static build that ./install makes) gets rows of its own in the same run.
# IN=d000 runs every command from that subdirectory of each repository.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
git="${WARD_REAL_GIT:-/usr/local/bin/git}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Each binary measured as ./install leaves it: a copy written in one piece
# (its page cache in 2 MiB folios where the kernel allows); LAY2=cp copies
# the second one with cp instead (small folios, as after the binary was
# dropped from the cache and read back).
lay() { # how source destination
  if [ "$1" = cp ]; then cp "$2" "$3"; else dd if="$2" of="$3" bs=67108864 status=none; fi
  chmod +x "$3"
}
ward="$work/git-ward"
lay dd "${1:-$here/target/release/git-ward}" "$ward"
other=""
if [ -n "${2:-}" ]; then
  other="$work/git-ward-2"
  lay "${LAY2:-dd}" "$2" "$other"
fi
# The floor for any shim: a static Rust program, built like ./install's
# binary, that only execs the real git (built before HOME changes, for rustup).
cat > "$work/exec.rs" <<RS
use std::os::unix::process::CommandExt;
fn main() {
    let e = std::process::Command::new("$git").args(std::env::args_os().skip(1)).exec();
    eprintln!("{e}");
    std::process::exit(127);
}
RS
# The floor for a shim that waits for git (as git-ward does for mutating
# commands, to log the exit status): the same, running git as a child.
cat > "$work/spawn.rs" <<RS
fn main() {
    let s = std::process::Command::new("$git").args(std::env::args_os().skip(1)).status();
    std::process::exit(s.ok().and_then(|s| s.code()).unwrap_or(127));
}
RS
# Linked as ./install links git-ward: against musl where rustup has the
# target (FLOOR_LIBC=gnu: glibc, as the tables before the musl build had).
floor_target=()
musl="$(uname -m)-unknown-linux-musl"
if [ "${FLOOR_LIBC:-musl}" = musl ] && rustup target list --installed 2>/dev/null | grep -qx "$musl"; then
  floor_target=(--target "$musl")
fi
echo "floors linked against ${floor_target[1]:-glibc}"
echo
for floor in exec spawn; do
  mkdir -p "$work/$floor-only"
  rustc -O "${floor_target[@]}" -C target-feature=+crt-static -C relocation-model=static \
    -o "$work/$floor-only/linked" "$work/$floor.rs"
  lay dd "$work/$floor-only/linked" "$work/$floor-only/git"
done

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
    extra=("shim (2nd binary) rev-parse HEAD:git rev-parse HEAD=$work/shim2/git rev-parse HEAD"
           "shim (2nd binary) status:git status=$work/shim2/git status"
           "shim (2nd binary) commit:git commit (mutating, child)=$work/shim2/git commit -q --allow-empty -m x")
  fi
  echo "### $repo repository ($("$git" ls-files :/ | wc -l) files)"
  echo
  rounds=${ROUNDS:-60}
  [ "$repo" = large ] && rounds=${ROUNDS_LARGE:-20}
  python3 "$here/bench/interleave.py" --rounds "$rounds" \
    "git rev-parse HEAD=$git rev-parse HEAD" \
    "exec-only shim rev-parse HEAD:git rev-parse HEAD=$work/exec-only/git rev-parse HEAD" \
    "shim rev-parse HEAD:git rev-parse HEAD=$work/shim/git rev-parse HEAD" \
    "git status:git status=$git status" \
    "shim status:git status=$work/shim/git status" \
    "git-ward explain:git rev-parse HEAD=$ward explain -- commit -m x" \
    "git commit (mutating, child):git commit (mutating, child)=$git commit -q --allow-empty -m x" \
    "spawn-only shim commit:git commit (mutating, child)=$work/spawn-only/git commit -q --allow-empty -m x" \
    "shim commit (mutating, child):git commit (mutating, child)=$work/shim/git commit -q --allow-empty -m x" \
    "${extra[@]}"
  echo
done

cd "$work/small"
if command -v strace >/dev/null; then
  strace -f -qq -e trace=execve -o "$work/trace" "$work/shim/git" status >/dev/null
  echo "execve calls for \`git status\` through the shim: $(grep -c 'execve(' "$work/trace") (the shim itself, then the real git by exec: no child process)"
fi
