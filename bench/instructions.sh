#!/usr/bin/env bash
# Instructions git-ward itself executes on the hot paths, counted by
# callgrind: the same count whatever else the machine is doing, so two
# builds compare exactly even on a loaded machine. (The shim is not here:
# it ends in an exec of the real git, where callgrind stops without a
# count; bench/shim.sh times it.) For each binary given:
#   explain                   `git-ward explain -- commit -m x`
#   hook pre-commit           an agent's commit on its own branch
#   hook commit-msg           the footer check
#   hook reference-transaction (prepared, committed) one branch update
#   hook pre-push             one line to an agent branch
#
#   bench/instructions.sh BINARY [BINARY2]
#
# Build the binaries as ./install does (static, musl, fixed address) to
# compare what users run.
set -euo pipefail
git="${WARD_REAL_GIT:-/usr/local/bin/git}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 WARD_REAL_GIT="$git"
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
mkdir -p "$HOME"
repo="$work/repo"
"$git" init -q -b main "$repo"
"$git" -C "$repo" config user.email bench@example.com
"$git" -C "$repo" config user.name bench
for i in $(seq 1 10); do echo "$i" > "$repo/f$i"; done
"$git" -C "$repo" add -A
"$git" -C "$repo" commit -qm initial
"$git" -C "$repo" switch -q -c agent/bench
head="$("$git" -C "$repo" rev-parse HEAD)"
msg="$work/msg"
printf 'work\n\nContract: bench\n' > "$msg"

# count N ARGV0 STDIN ARGS...: the instructions callgrind counts for
# binary N started as ARGV0 in repository N.
count() {
  local n="$1" argv0="$2" input="$3"
  shift 3
  local out="$work/cg.out"
  rm -f "$out"
  (cd "$work/repo$n" && WARD_AGENT=1 WARD_CONTRACT=bench valgrind --tool=callgrind \
    --callgrind-out-file="$out" --trace-children=no -q \
    "$work/bin$n/$argv0" "$@" < "$input" > /dev/null 2>&1) || true
  awk '/^summary:|^totals:/ {print $2; exit}' "$out"
}

: > "$work/empty"
printf '0000000000000000000000000000000000000000 %s refs/heads/agent/bench\n' "$head" > "$work/rt"
printf 'refs/heads/agent/bench %s refs/heads/agent/bench 0000000000000000000000000000000000000000\n' "$head" > "$work/push"

[ "$#" -ge 1 ] || { echo "usage: $0 BINARY [BINARY2]" >&2; exit 2; }
# One copy of the repository per binary, with that binary's hooks.
n=0
for b in "$@"; do
  n=$((n + 1))
  cp -a "$repo" "$work/repo$n"
  mkdir "$work/bin$n"
  cp "$b" "$work/bin$n/git-ward"
  ln -s git-ward "$work/bin$n/git"
  (cd "$work/repo$n" && "$b" install > /dev/null)
done
printf '| instructions (callgrind) |'
for b in "$@"; do printf ' %s |' "$b"; done
printf '\n|---|'
for _ in "$@"; do printf -- '---:|'; done
printf '\n'
cases=(
  "explain -- commit -m x|git-ward|empty|explain -- commit -m x"
  "hook pre-commit|git-ward|empty|hook HOOKS/pre-commit"
  "hook commit-msg|git-ward|empty|hook HOOKS/commit-msg $msg"
  "hook reference-transaction prepared|git-ward|rt|hook HOOKS/reference-transaction prepared"
  "hook reference-transaction committed|git-ward|rt|hook HOOKS/reference-transaction committed"
  "hook pre-push|git-ward|push|hook HOOKS/pre-push origin REPO"
)
for c in "${cases[@]}"; do
  IFS='|' read -r label argv0 input args <<< "$c"
  printf '| %s |' "$label"
  n=0
  for b in "$@"; do
    n=$((n + 1))
    r="$work/repo$n"
    a="${args//HOOKS/$r/.git/hooks}"
    a="${a//REPO/$r}"
    # Once to fill the settings cache, then counted.
    # shellcheck disable=SC2086
    count "$n" "$argv0" "$work/$input" $a > /dev/null
    # shellcheck disable=SC2086
    printf ' %s |' "$(count "$n" "$argv0" "$work/$input" $a)"
  done
  printf '\n'
done
