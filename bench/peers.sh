#!/usr/bin/env bash
# git-ward beside the tools that do the same jobs, interleaved in one run
# (bench/interleave.py), every row against plain git:
#
#   shim        a read-only command (`rev-parse HEAD`, `status`), a commit
#               (`commit --allow-empty`) and a `reset --hard` over 10
#               changed files (changed again before each run, untimed) in a
#               20,000-file repository: plain git; git-ward's shim (an agent
#               on its branch, its hooks installed, a checkpoint before the
#               reset); agentic-git's shim in the worktree its `run` makes
#               (its hooks, its snapshots on, as `run` sets them)
#   hooks       a commit of one changed file (10 files) with: no hooks; five
#               no-op native hooks (the floor); pre-commit running
#               `no-commit-to-branch`; lefthook running the same check (the
#               branch is not `main`); git-ward's hooks, a person's commit
#               and an agent's; agentic-git's hooks
#   checkpoint  on the 20,000 files with 10 changed: `git ward checkpoint`;
#               `git stash create`; agentic-git's snapshot, which it takes
#               only in front of a destructive command: its shim on `git
#               stash drop` with no stash (git's part fails at once; its
#               cost alone is the row `git stash drop (empty)`)
#
#   bench/peers.sh [BINARY]
#
# BINARY defaults to the musl release build ./install makes. The peers are
# installed once into BENCH_CACHE (default ~/.cache/git-ward-bench):
# agentic-git 0.2.5 with `cargo install --locked` (or AGENTIC_GIT=<its
# binary>), pre-commit 4.7.0 and pre-commit-hooks 6.0.0 into a venv (pip),
# lefthook 2.2.2 with npm (its native binary is run, not the node wrapper).
# A peer that cannot be installed stops the script with the reason.
# ROUNDS=20 (3 runs per round; the reset and checkpoint tables 10 rounds of
# 1, RESET_ROUNDS), FILES=20000.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
git="${WARD_REAL_GIT:-/usr/local/bin/git}"
bin="${1:-$here/target/x86_64-unknown-linux-musl/release/git-ward}"
[ -x "$bin" ] || { echo "peers.sh: no git-ward binary at $bin (build it as ./install does)" >&2; exit 1; }
files=${FILES:-20000}
rounds=${ROUNDS:-20}
reset_rounds=${RESET_ROUNDS:-10}

# --- the peers, installed once ----------------------------------------------
cache="${BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/git-ward-bench}"
mkdir -p "$cache"
need() { command -v "$1" >/dev/null || { echo "peers.sh: $1 is needed to install $2" >&2; exit 1; }; }
agentic="${AGENTIC_GIT:-$cache/agentic-git/bin/agentic-git}"
if [ ! -x "$agentic" ]; then
  need cargo agentic-git
  echo "installing agentic-git 0.2.5 into $cache/agentic-git" >&2
  cargo install -q --locked agentic-git --version 0.2.5 --root "$cache/agentic-git" >&2
fi
venv="$cache/venv"
if [ ! -x "$venv/bin/no-commit-to-branch" ] || [ ! -x "$venv/bin/pre-commit" ]; then
  need python3 pre-commit
  rm -rf "$venv"
  python3 -m venv "$venv"
  PIP_USER=0 "$venv/bin/pip" install -q --disable-pip-version-check \
    pre-commit==4.7.0 pre-commit-hooks==6.0.0 >&2
fi
lefthook="$cache/node/node_modules/lefthook-linux-x64/bin/lefthook"
if [ ! -x "$lefthook" ]; then
  need npm lefthook
  mkdir -p "$cache/node"
  (cd "$cache/node" && echo '{"private": true}' > package.json &&
    npm install -s --no-audit --no-fund lefthook@2.2.2 >&2)
  [ -x "$lefthook" ] || { echo "peers.sh: lefthook's binary is not at $lefthook" >&2; exit 1; }
fi

# --- the machine of the run ---------------------------------------------------
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/shim" "$work/tools"
dd if="$bin" of="$work/bin/git-ward" bs=67108864 status=none
chmod +x "$work/bin/git-ward"
ward="$work/bin/git-ward"
ln -s "$ward" "$work/shim/git"
ln -s "$lefthook" "$work/tools/lefthook"
export HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 WARD_REAL_GIT="$git" TZ=UTC
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@x GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@x
export PATH="$(dirname "$git"):$work/tools:$PATH" NO_COLOR=1 PRE_COMMIT_HOME="$work/pre-commit-home"
unset WARD_AGENT WARD_CONTRACT WARD_SESSION WARD_POLICY CLAUDECODE CLAUDE_CODE_ENTRYPOINT \
  CODEX_SANDBOX CURSOR_AGENT GEMINI_CLI OPENHANDS GOOSE_SESSION \
  AGENTIC_GIT_AGENT AGENTIC_GIT_HOME AGENTIC_GIT_SNAPSHOTS AGENTIC_GIT_BYPASS
mkdir -p "$HOME"
echo "git-ward: $bin ($("$ward" --version)); $("$agentic" version); pre-commit $("$venv/bin/pre-commit" --version | cut -d' ' -f2);" \
  "lefthook $("$lefthook" version); $("$git" --version)"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(uname -sr), $(date -u +%FT%TZ)"

source_repo() { # dir files
  "$git" init -q -b main "$1"
  (cd "$1" && python3 "$here/bench/tree.py" "$2" && "$git" add -A && "$git" commit -q -m init)
}
# agentic-git's `run` for agent NAME in repository DIR: its worktree, and
# the environment it gives the session (written to FILE, one VAR=VALUE a line).
agentic_run() { # dir name file
  (cd "$1" && "$agentic" run --agent "$2" -- sh -c \
    'pwd > "$0"; env | grep -E "^(AGENTIC_GIT_[A-Z_]*|PATH)=" >> "$0"' "$3" >/dev/null 2>&1)
  [ -s "$3" ] || { echo "peers.sh: agentic-git run made no session in $1" >&2; exit 1; }
}
# --env options of interleave.py for NAME from such a FILE.
agentic_env() { # name file
  local line
  tail -n +2 "$2" | while read -r line; do printf -- '--env\0%s=%s\0' "$1" "$line"; done
}
# Appends a line to 10 tracked files spread over the tree.
cat > "$work/change10.py" <<'PY'
import subprocess, sys
paths = subprocess.run([sys.argv[1], "ls-files", "-z"], capture_output=True,
                       check=True).stdout.split(b"\0")[:-1]
for p in paths[::max(1, len(paths) // 10)][:10]:
    with open(p, "ab") as f:
        f.write(b"changed\n")
PY

# The three repositories of FILES files: plain git, git-ward, agentic-git.
source_repo "$work/big-plain" "$files"
"$git" -C "$work/big-plain" switch -q -c feature
source_repo "$work/big-ward" "$files"
(cd "$work/big-ward" && "$git" switch -q -c agent/c1 && "$ward" install >/dev/null)
source_repo "$work/big-agentic-src" "$files"
agentic_run "$work/big-agentic-src" big "$work/big-agentic.env"
big_agentic=$(head -1 "$work/big-agentic.env")
agentic_shim="$(sed -n 's/^AGENTIC_GIT_HOME=//p' "$work/big-agentic.env")/bin/git"
[ -x "$agentic_shim" ] || { echo "peers.sh: no agentic-git shim at $agentic_shim" >&2; exit 1; }
for d in "$work/big-plain" "$work/big-ward" "$big_agentic"; do "$git" -C "$d" status >/dev/null; done
"$work/shim/git" -C "$work/big-ward" status >/dev/null # git-ward's settings cache

interleave() { python3 "$here/bench/interleave.py" "$@"; }
mapfile -d '' big_env < <(agentic_env "agentic-git" "$work/big-agentic.env"; \
  agentic_env "agentic-git reset --hard" "$work/big-agentic.env")
ward_env=(--env "git-ward=WARD_CONTRACT=c1" --env "git-ward reset --hard=WARD_CONTRACT=c1")

echo
echo "## The shim: a read-only command, a commit, $files files"
for what in "rev-parse HEAD" "status" "commit -q --allow-empty -m x"; do
  echo
  echo "### \`git ${what% -q*}\`"
  interleave --rounds "$rounds" --per-round 3 --warmup 3 \
    --cwd "$work/big-plain" --cwd-of "git-ward=$work/big-ward" --cwd-of "agentic-git=$big_agentic" \
    "${ward_env[@]}" "${big_env[@]}" \
    "git=$git $what" \
    "git-ward=$work/shim/git $what" \
    "agentic-git=$agentic_shim $what"
done

echo
echo "### \`git reset --hard\` over 10 changed files, each tool's snapshot on"
interleave --rounds "$reset_rounds" --per-round 1 --warmup 2 --json "$work/reset.json" \
  --cwd "$work/big-plain" --cwd-of "git-ward reset --hard=$work/big-ward" \
  --cwd-of "agentic-git reset --hard=$big_agentic" \
  "${ward_env[@]}" "${big_env[@]}" \
  --prepare "git reset --hard=python3 $work/change10.py $git" \
  --prepare "git-ward reset --hard=python3 $work/change10.py $git" \
  --prepare "agentic-git reset --hard=python3 $work/change10.py $git" \
  "git reset --hard=$git reset -q --hard" \
  "git-ward reset --hard=$work/shim/git reset -q --hard" \
  "agentic-git reset --hard=$agentic_shim reset -q --hard"
echo "checkpoints git-ward took: $("$git" -C "$work/big-ward" for-each-ref refs/ward/checkpoints/ | wc -l)" \
  "(retention keeps 200); snapshots agentic-git took: $("$git" -C "$big_agentic" for-each-ref refs/agentic-git/snapshots/ | wc -l)"

echo
echo "## A commit with each tool's hooks (10 files)"
source_repo "$work/small" 10
hooks="pre-commit prepare-commit-msg commit-msg pre-push reference-transaction"
printf 'int main(void){return 0;}\n' > "$work/noop.c"
gcc -O2 -o "$work/noop" "$work/noop.c"
for v in none native pre-commit lefthook git-ward; do
  "$git" clone -q "$work/small" "$work/$v"
  "$git" -C "$work/$v" switch -q -c agent/c1
done
for h in $hooks; do cp "$work/noop" "$work/native/.git/hooks/$h"; done
# Each commit records one changed file (staged before it, untimed): lefthook
# runs no pre-commit command when nothing is staged.
cat > "$work/stage.sh" <<SH
echo x >> src/d0000/f000000.txt && $git add src/d0000/f000000.txt
SH
cat > "$work/pre-commit/.pre-commit-config.yaml" <<YAML
repos:
- repo: local
  hooks:
  - id: no-commit-to-branch
    name: no-commit-to-branch
    entry: $venv/bin/no-commit-to-branch
    language: system
    pass_filenames: false
    always_run: true
YAML
(cd "$work/pre-commit" && "$venv/bin/pre-commit" install >/dev/null)
cat > "$work/lefthook/lefthook.yml" <<'YAML'
pre-commit:
  commands:
    no-commit-to-branch:
      run: test "$(git symbolic-ref --short HEAD)" != main
YAML
(cd "$work/lefthook" && lefthook install >/dev/null)
(cd "$work/git-ward" && "$ward" install >/dev/null)
agentic_run "$work/small" small "$work/small-agentic.env"
small_agentic=$(head -1 "$work/small-agentic.env")
mapfile -d '' small_env < <(agentic_env "agentic-git" "$work/small-agentic.env")
# Each tool's hook must run and pass on the agent branch (and stop a commit
# to main), else the row would time nothing.
for v in pre-commit lefthook; do
  "$git" -C "$work/$v" switch -q main
  (cd "$work/$v" && sh "$work/stage.sh")
  if "$git" -C "$work/$v" commit -q -m x >/dev/null 2>&1; then
    echo "peers.sh: $v did not stop a commit to main" >&2; exit 1
  fi
  "$git" -C "$work/$v" reset -q --hard
  "$git" -C "$work/$v" switch -q agent/c1
done
prep=()
for v in none native pre-commit lefthook "git-ward, a person" "git-ward, an agent" agentic-git; do
  prep+=(--prepare "$v=sh $work/stage.sh")
done
interleave --rounds "$rounds" --per-round 3 --warmup 3 --cwd "$work/none" \
  --cwd-of "native=$work/native" --cwd-of "pre-commit=$work/pre-commit" \
  --cwd-of "lefthook=$work/lefthook" --cwd-of "git-ward, a person=$work/git-ward" \
  --cwd-of "git-ward, an agent=$work/git-ward" --cwd-of "agentic-git=$small_agentic" \
  --env "git-ward, an agent=WARD_AGENT=1" --env "git-ward, an agent=WARD_CONTRACT=c1" \
  "${small_env[@]}" "${prep[@]}" \
  "none:native=$git commit -q -m x" \
  "native:native=$git commit -q -m x" \
  "pre-commit:native=$git commit -q -m x" \
  "lefthook:native=$git commit -q -m x" \
  "git-ward, a person:native=$git commit -q -m x" \
  "git-ward, an agent:native=$git commit -q -m x" \
  "agentic-git:native=$git commit -q -m x"
echo "agentic-git's trailer on its last commit: $("$git" -C "$small_agentic" log -1 --format=%B | grep -c '^Agentic-Agent:')"

echo
echo "## A checkpoint of 10 changed files in $files"
for d in "$work/big-plain" "$work/big-ward" "$big_agentic"; do
  "$git" -C "$d" reset -q --hard
  (cd "$d" && python3 "$work/change10.py" "$git")
  "$git" -C "$d" status >/dev/null
done
mapfile -d '' snap_env < <(agentic_env "agentic-git snapshot (stash drop)" "$work/big-agentic.env")
snapshots() { "$git" -C "$big_agentic" for-each-ref refs/agentic-git/snapshots/ | wc -l; }
before=$(snapshots)
# `stash drop` with no stash fails (exit 1), in both of its rows: not a
# failure of the run.
BENCH_CHECK= interleave --rounds "$reset_rounds" --per-round 1 --warmup 2 --cwd "$work/big-plain" \
  --cwd-of "git ward checkpoint=$work/big-ward" --cwd-of "agentic-git snapshot (stash drop)=$big_agentic" \
  "${snap_env[@]}" \
  "git stash create=$git stash create" \
  "git status:git stash create=$git status" \
  "git ward checkpoint:git stash create=$ward checkpoint" \
  "agentic-git snapshot (stash drop):git stash create=$agentic_shim stash drop" \
  "git stash drop (empty):git stash create=$git stash drop"
echo "snapshots agentic-git took in this table: $(($(snapshots) - before))"
