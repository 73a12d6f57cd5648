#!/usr/bin/env bash
# Instructions git-ward's hooks execute over whole git commands, counted
# by callgrind: every hook run of an agent's commit, a person's commit and
# a fetch of 20 tags, summed. git runs natively and starts each hook as it
# would (the hook's parent is git, as in use); only git-ward runs under
# callgrind, through a wrapper named like the binary. The same count
# whatever else the machine is doing, so builds compare exactly.
#
#   bench/hook_instructions.sh BINARY [BINARY2 ...]
set -euo pipefail
git="${WARD_REAL_GIT:-/usr/local/bin/git}"
[ "$#" -ge 1 ] || { echo "usage: $0 BINARY [BINARY2 ...]" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
unset WARD_AGENT WARD_CONTRACT CLAUDECODE
"$git" init -q -b main "$work/src"
for i in $(seq 1 20); do
  "$git" -C "$work/src" commit -q --allow-empty -m "$i"
  "$git" -C "$work/src" tag "v$i"
done

# total DIR: the instructions of the callgrind outputs in DIR, and how many runs.
total() {
  local sum=0 n=0 t f
  for f in "$1"/cg.*; do
    [ -e "$f" ] || continue
    t=$(awk '/^summary:|^totals:/ {print $2; exit}' "$f")
    sum=$((sum + t)); n=$((n + 1))
  done
  echo "$sum ($n runs)"
}

declare -A cell
n=0
for b in "$@"; do
  n=$((n + 1))
  d="$work/b$n"
  mkdir -p "$d/real" "$d/home"
  cp "$b" "$d/real/git-ward"
  "$git" clone -q "$work/src" "$d/r"
  "$git" -C "$d/r" tag -d $("$git" -C "$d/r" tag) > /dev/null
  "$git" -C "$d/r" checkout -q -b agent/c1
  # The hooks name $d/git-ward: installed by the binary, then a wrapper.
  cp "$b" "$d/git-ward"
  (cd "$d/r" && HOME="$d/home" "$d/git-ward" install > /dev/null)
  printf '#!/bin/sh\nexec valgrind -q --tool=callgrind --callgrind-out-file="$CGOUT/cg.%%p" %s "$@"\n' \
    "$d/real/git-ward" > "$d/git-ward"
  export HOME="$d/home" CGOUT="$d/warm"
  mkdir -p "$CGOUT"
  cd "$d/r"
  # Warm: the settings cache and the drift state written.
  for _ in 1 2; do
    WARD_AGENT=1 WARD_CONTRACT=c1 "$git" commit -q --allow-empty -m w
    "$git" commit -q --allow-empty -m w
  done
  CGOUT="$d/agent"; mkdir -p "$CGOUT"
  WARD_AGENT=1 WARD_CONTRACT=c1 "$git" commit -q --allow-empty -m x
  cell[agent,$n]=$(total "$d/agent")
  CGOUT="$d/human"; mkdir -p "$CGOUT"
  "$git" commit -q --allow-empty -m x
  cell[human,$n]=$(total "$d/human")
  CGOUT="$d/warm"
  "$git" fetch -q --no-auto-gc origin 'refs/tags/*:refs/tags/*'
  "$git" tag -d $("$git" tag) > /dev/null
  CGOUT="$d/fetch"; mkdir -p "$CGOUT"
  "$git" fetch -q --no-auto-gc origin 'refs/tags/*:refs/tags/*'
  cell[fetch,$n]=$(total "$d/fetch")
  cd "$work"
done
printf '| instructions, all hook runs (callgrind) |'
for b in "$@"; do printf ' %s |' "$b"; done
printf '\n|---|'
for _ in "$@"; do printf -- '---:|'; done
printf '\n'
for row in "agent:an agent's commit" "human:a person's commit" "fetch:a fetch of 20 tags"; do
  key=${row%%:*}
  printf '| %s |' "${row#*:}"
  for i in $(seq 1 "$n"); do printf ' %s |' "${cell[$key,$i]}"; done
  printf '\n'
done
