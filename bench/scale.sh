#!/usr/bin/env bash
# git-ward on a repository the size of a large real one (bench/scale-repo:
# 100,000 files in 2,000 directories, 1,000 commits, 10,000 tags),
# interleaved (bench/interleave.py), each section one table:
#
#   status    the shim's added latency on `git status`
#   clean     the pre-destructive check on a clean tree: `reset --hard` and
#             `checkout -- .` through the shim (an agent on its own branch,
#             nothing to lose: no checkpoint) against the same by git; the
#             check's cost (shim minus git) against `git diff --quiet`
#   changes   `git ward checkpoint`, `rollback <id> --yes` and `undo --yes`
#             against `git status` (and `git stash create`) with 10, 1,000
#             and 10,000 changed files; rollback runs after a `git reset
#             --hard` (untimed), undo after an agent's checkpointed `reset
#             --hard` through the shim (untimed), so each restores the files;
#             `git restore --source=<those changes> .` after the same reset
#             is git writing the same files
#   sessions  `git ward sessions` with 2, then 8 worktrees made by `git ward
#             run --worktree`, against `git worktree list` plus `git status
#             --porcelain` in each worktree (what it reports about each)
#   audit     `git ward audit` queries over logs of 10,000, 100,000 and
#             1,000,000 generated lines (30 days, the format of src/audit.rs)
#             against `grep` over the same files, and each query's peak
#             resident memory; `sessions` again at the end
#
#   bench/scale.sh [BINARY [REPO]]
#
# BINARY defaults to the musl release build ./install makes
# (target/x86_64-unknown-linux-musl/release/git-ward). REPO is a
# repository bench/scale-repo made; it is cloned here and left as it is
# (without one, this script makes its own in its temporary directory).
# SECTIONS="status clean changes sessions audit", ROUNDS=8 (CHANGE_ROUNDS=4,
# BIG_CHANGE_ROUNDS=1 from 10,000 changed files, SESSION_ROUNDS=5,
# AUDIT_ROUNDS=3 at most), CHANGES="10 1000 10000",
# LANES="2 8", AUDIT_LINES="10000 100000 1000000" adjust it. Everything is
# written under one temporary directory (TMPDIR), removed at the end; it
# needs about 5 GB with 8 worktrees, and GNU time (/usr/bin/time) for
# the audit queries' peak memory.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
git="${WARD_REAL_GIT:-/usr/local/bin/git}"
bin="${1:-$here/target/x86_64-unknown-linux-musl/release/git-ward}"
[ -x "$bin" ] || { echo "scale.sh: no git-ward binary at $bin (build it as ./install does)" >&2; exit 1; }
source_repo="${2:-}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rounds=${ROUNDS:-8}
min() { if [ "$1" -lt "$2" ]; then echo "$1"; else echo "$2"; fi; }

# The binary as ./install leaves it: written in one piece; the shim is a
# link named `git` to it.
mkdir -p "$work/bin" "$work/shim"
dd if="$bin" of="$work/bin/git-ward" bs=67108864 status=none
chmod +x "$work/bin/git-ward"
ward="$work/bin/git-ward"
ln -s "$ward" "$work/shim/git"
shim="$work/shim/git"

export HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 WARD_REAL_GIT="$git" TZ=UTC
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@x GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@x
unset WARD_AGENT WARD_SESSION WARD_POLICY CLAUDECODE CLAUDE_CODE_ENTRYPOINT CODEX_SANDBOX \
  CURSOR_AGENT GEMINI_CLI OPENHANDS GOOSE_SESSION
# The shim's commands are an agent's, under this contract, on its branch.
export WARD_CONTRACT=c1
mkdir -p "$HOME"

repo="$work/repo"
started=$(date +%s)
if [ -n "$source_repo" ]; then
  "$git" clone -q --no-local "$source_repo" "$repo"
else
  GIT="$git" python3 "$here/bench/scale-repo" "$repo" >/dev/null
fi
cd "$repo"
"$git" switch -q -c agent/c1
"$ward" install >/dev/null
files=$("$git" ls-files | wc -l)
echo "git-ward: $bin ($("$ward" --version)), $("$git" --version)"
echo "repository: $files files, $("$git" rev-list --count HEAD) commits, $("$git" tag | wc -l) tags," \
  ".git $(du -sm .git | cut -f1) MiB (ready in $(($(date +%s) - started)) s)"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(uname -sr), $(date -u +%FT%TZ)"
"$git" status >/dev/null # the index's stat cache
"$shim" status >/dev/null # git-ward's settings cache

interleave() { python3 "$here/bench/interleave.py" --cwd "$repo" "$@"; }
# The median of NAME in a --json file: wall or cpu.
median() { python3 -c 'import json,sys; print("%.2f" % json.load(open(sys.argv[1]))[sys.argv[2]][sys.argv[3] + "_ms"])' "$@"; }
ratio() { python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$@"; }
minus() { python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) - float(sys.argv[2])))' "$@"; }

# Appends a line to N tracked files spread evenly over the tree.
cat > "$work/change.py" <<'PY'
import subprocess, sys
n = int(sys.argv[2])
paths = subprocess.run([sys.argv[1], "ls-files", "-z"], capture_output=True,
                       check=True).stdout.split(b"\0")[:-1]
for p in paths[::max(1, len(paths) // n)][:n]:
    with open(p, "ab") as f:
        f.write(b"changed\n")
PY

section() { case " ${SECTIONS:-status clean changes sessions audit} " in *" $1 "*) return 0;; esac; return 1; }

if section status; then
  echo
  echo "## The shim on \`git status\` ($files files)"
  interleave --rounds "$rounds" --per-round 2 --warmup 2 \
    "git status=$git status" \
    "shim status:git status=$shim status"
fi

if section clean; then
  echo
  echo "## The pre-destructive check on a clean tree ($files files)"
  # Files an hour older than the index: no entry is racy (as any tree is
  # a second after its last checkout or commit).
  find . -path ./.git -prune -o -exec touch -h -d '1 hour ago' {} +
  "$git" update-index -q --refresh
  interleave --rounds "$rounds" --per-round 2 --warmup 2 --json "$work/clean.json" \
    "git diff --quiet=$git diff --quiet" \
    "git reset --hard:git diff --quiet=$git reset -q --hard" \
    "shim reset --hard:git reset --hard=$shim reset -q --hard" \
    "git checkout -- .:git diff --quiet=$git checkout -- ." \
    "shim checkout -- .:git checkout -- .=$shim checkout -- ."
  for cmd in "reset --hard" "checkout -- ."; do
    for t in wall cpu; do
      diffq=$(median "$work/clean.json" "git diff --quiet" $t)
      added=$(minus "$(median "$work/clean.json" "shim $cmd" $t)" "$(median "$work/clean.json" "git $cmd" $t)")
      echo "the check before \`$cmd\` (shim minus git, $t): $added ms = $(ratio "$added" "$diffq")x \`git diff --quiet\` ($diffq ms)"
    done
  done
  echo "checkpoints taken: $("$git" for-each-ref refs/ward/checkpoints/ | wc -l) (none expected: nothing to lose)"
fi

if section changes; then
  for n in ${CHANGES:-10 1000 10000}; do
    # Writing files is slow on some filesystems (an ext4 without a journal
    # skips the inodes freed in the last minutes one by one): fewer rounds
    # where thousands are written per run.
    if [ "$n" -ge 10000 ]; then cr=${BIG_CHANGE_ROUNDS:-1}; warm=0
    else cr=$(min "$rounds" "${CHANGE_ROUNDS:-4}"); warm=1; fi
    echo
    echo "## checkpoint, rollback and undo, $n changed files ($files files)"
    "$git" reset -q --hard
    python3 "$work/change.py" "$git" "$n"
    id=$("$ward" checkpoint --pin --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["checkpoint"]["id"])')
    changed=$("$git" stash create)
    "$git" status >/dev/null
    interleave --rounds "$cr" --per-round 1 --warmup "$warm" --json "$work/changes.json" \
      --prepare "rollback=$git reset -q --hard" \
      --prepare "undo=$shim reset -q --hard" \
      --prepare "git restore (writes them)=$git reset -q --hard" \
      "git status=$git status" \
      "git stash create:git status=$git stash create" \
      "checkpoint:git status=$ward checkpoint" \
      "git restore (writes them):git status=$git restore --source=$changed --worktree ." \
      "rollback:git status=$ward rollback $id --yes" \
      "undo:git status=$ward undo --yes"
    echo "checkpoint against \`git stash create\`: $(ratio "$(median "$work/changes.json" checkpoint wall)" \
      "$(median "$work/changes.json" "git stash create" wall)")x wall," \
      "$(ratio "$(median "$work/changes.json" checkpoint cpu)" "$(median "$work/changes.json" "git stash create" cpu)")x CPU"
    for what in rollback undo; do
      echo "$what against git writing the same files (\`git restore --source\`): $(ratio \
        "$(median "$work/changes.json" "$what" wall)" "$(median "$work/changes.json" "git restore (writes them)" wall)")x wall"
    done
    left=$("$git" status --porcelain | wc -l)
    [ "$left" = "$n" ] || echo "note: $left changed files after the runs, $n expected"
  done
  "$git" reset -q --hard
fi

if section sessions || section audit; then
  # `git worktree list` and what `sessions` says of each worktree.
  cat > "$work/each.sh" <<SH
$git worktree list --porcelain | sed -n 's/^worktree //p' | while read -r w; do
  $git -C "\$w" status --porcelain >/dev/null
done
SH
fi

lanes_made=0
if section sessions; then
  sr=$(min "$rounds" "${SESSION_ROUNDS:-5}")
  for want in ${LANES:-2 8}; do
    while [ "$lanes_made" -lt "$want" ]; do
      lanes_made=$((lanes_made + 1))
      # A lane with one new file, its session over (no lease).
      env -u WARD_CONTRACT "$ward" run --worktree "$work/lanes/l$lanes_made" \
        --contract "l$lanes_made" -- sh -c 'echo x > lane-note.txt' >"$work/run.log" 2>&1 ||
        { cat "$work/run.log" >&2; exit 1; }
    done
    echo
    echo "## \`git ward sessions\`, $want worktrees besides the main one ($files files each)"
    interleave --rounds "$sr" --per-round 1 --warmup 1 \
      "worktree list + status in each=sh $work/each.sh" \
      "sessions:worktree list + status in each=$ward sessions"
  done
fi

if section audit; then
  ar=$(min "$rounds" "${AUDIT_ROUNDS:-3}")
  audit_dir="$("$git" rev-parse --git-common-dir)/ward/audit"
  for lines in ${AUDIT_LINES:-10000 100000 1000000}; do
    rm -rf "$audit_dir"
    # The lines name the worktrees there are (the main one, the lanes).
    python3 - "$audit_dir" "$lines" $("$git" worktree list --porcelain | sed -n 's/^worktree //p') <<'PY'
import os, random, sys, time
dirname, n, trees = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
os.makedirs(dirname)
rng = random.Random(7)
end = time.time() - 60
start = end - 30 * 86400
ops = [("shim", "git.status", '["status"]', 0), ("shim", "git.commit", '["commit","-m","x"]', 1),
       ("shim", "git.diff", '["diff"]', 0), ("reference-transaction", "git.commit", '[]', 1),
       ("shim", "git.reset", '["reset","--hard"]', 1), ("tool", "ward.checkpoint", '["checkpoint"]', 1),
       ("pre-commit", "git.commit", '[]', 1), ("shim", "git.push", '["push","origin","HEAD"]', 1)]
decisions = ["allow"] * 90 + ["checkpoint"] * 4 + ["deny"] * 3 + ["autoswitch"] * 2 + ["drift"]
files = {}
for i in range(n):
    t = start + (end - start) * i / n
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % int(t * 1000 % 1000)
    src, op, argv, tier = ops[rng.randrange(len(ops))]
    d = rng.choice(decisions)
    c = rng.randrange(21)
    contract = "null" if c == 20 else '"c%d"' % c
    session = "null" if c == 20 else '"s%03d"' % rng.randrange(200)
    actor = "human" if c == 20 else "agent"
    code = '"D%02d"' % rng.randrange(12) if d == "deny" else "null"
    day = stamp[:10]
    f = files.get(day) or files.setdefault(day, open(os.path.join(dirname, f"audit.{day}.jsonl"), "w"))
    f.write('{"timestamp":"%s","started_at":"%s","duration_ms":%d,"trace_id":"%016x-%04x",'
            '"source":"%s","actor":"%s","contract_id":%s,"operation":"%s","argv":%s,"tier":%d,'
            '"decision":"%s","branch_before":"agent/c%d","branch_after":"agent/c%d",'
            '"actions_taken":[],"denial_code":%s,"exit_code":0,"worktree":"%s",'
            '"session_id":%s}\n' % (stamp, stamp, rng.randrange(200), rng.getrandbits(64),
            rng.getrandbits(16), src, actor, contract, op, argv, tier, d, c, c, code,
            trees[c % len(trees)], session))
for f in files.values():
    f.close()
PY
    echo
    echo "## \`git ward audit\` over $lines lines ($(ls "$audit_dir" | wc -l) daily files, $(du -sm "$audit_dir" | cut -f1) MiB)"
    cat > "$work/grep.sh" <<SH
cat $audit_dir/*.jsonl | grep -c '"contract_id":"c3"'
SH
    cat > "$work/count.sh" <<SH
cat $audit_dir/*.jsonl | wc -l
SH
    extra=()
    if [ "$lanes_made" -gt 0 ]; then
      extra=("worktree list + status in each=sh $work/each.sh"
             "sessions:worktree list + status in each=$ward sessions")
    fi
    interleave --rounds "$ar" --per-round 1 --warmup 1 \
      "read every line (wc -l)=sh $work/count.sh" \
      "grep -c contract c3:read every line (wc -l)=sh $work/grep.sh" \
      "audit (every line, table):read every line (wc -l)=$ward audit" \
      "audit --json:read every line (wc -l)=$ward audit --json" \
      "audit --contract c3:read every line (wc -l)=$ward audit --contract c3" \
      "audit --decision deny:read every line (wc -l)=$ward audit --decision deny" \
      "audit --session s042:read every line (wc -l)=$ward audit --session s042" \
      "audit --since 1h:read every line (wc -l)=$ward audit --since 1h" \
      "${extra[@]}"
    # Peak resident memory of each query, one more run each: GNU time's
    # maximum resident set size (KiB), which a small forking parent
    # barely adds to (a Python one would add its own ~13 MiB).
    peaks=""
    for q in "" "--json" "--contract c3" "--decision deny" "--session s042" "--since 1h"; do
      # shellcheck disable=SC2086 # the query's words
      /usr/bin/time -f %M -o "$work/rss" "$ward" audit $q >/dev/null
      peaks="$peaks, audit${q:+ $q} $(($(tail -1 "$work/rss") / 1024)) MiB"
    done
    echo "peak resident memory (one run each):${peaks#,}"
  done
fi
echo
echo "done in $(($(date +%s) - started)) s"
