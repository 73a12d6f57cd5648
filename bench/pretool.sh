#!/usr/bin/env bash
# One `git ward pretool claude` call against one `git-ward explain` process,
# on a small repository (10 files), interleaved.
#   bench/pretool.sh [BINARY]     ROUNDS=20
set -euo pipefail
bin=${1:-$(dirname "$0")/../target/release/git-ward}
bin=$(realpath "$bin")
here=$(dirname "$(realpath "$0")")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@e \
  GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@e
mkdir -p "$HOME" "$tmp/repo"
cd "$tmp/repo"
git init -q -b main
for i in $(seq 10); do echo "$i" > "f$i"; done
git add . && git commit -qm init
"$bin" install >/dev/null
input() {
  printf '{"session_id":"s","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"%s"}}' "$tmp/repo" "$1"
}
input "git status" > "$tmp/status.json"
input "git push --force origin main" > "$tmp/push.json"
input "cd . && git status && git log -1" > "$tmp/two.json"
python3 "$here/interleave.py" --rounds "${ROUNDS:-20}" --per-round 3 --cwd "$tmp/repo" \
  --stdin "pretool-status=$tmp/status.json" \
  --stdin "pretool-push=$tmp/push.json" \
  --stdin "pretool-two=$tmp/two.json" \
  "explain-status=$bin explain --as-agent -- status" \
  "pretool-status:explain-status=$bin pretool claude" \
  "explain-push=$bin explain --as-agent -- push --force origin main" \
  "pretool-push:explain-push=$bin pretool claude" \
  "pretool-two:explain-status=$bin pretool claude"
