#!/usr/bin/env bash
# What git-ward's hooks cost: a commit (as a human, then as an agent with a
# contract) and a fetch of 100 tags, side by side in one run, in clones
# that differ only in their hooks:
#   none    no hooks
#   native  the same five hooks as a no-op native binary (the floor)
#   ward    `git ward install` (each hook starts git-ward by a `#!` line)
#   sh      the same from a path with a blank (the `/bin/sh` script form)
#   link    `git ward install --link`
#   ward2   `git ward install` with a second binary, if one is given
# usage: bench/hooks.sh [GIT] [WARD] [WARD2]
#        LAY2=cp bench/hooks.sh GIT WARD WARD   (the same binary in small pages)
#   (ROUNDS=60 rounds of 5 commits, FROUNDS=10 rounds of 2 fetches)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
GIT=${1:-/usr/local/bin/git}
WARD_SRC=$(realpath "${2:-target/release/git-ward}")
WARD2_SRC=${3:+$(realpath "$3")}
B=$(mktemp -d /tmp/wardbench.XXXX); cd "$B"
# Each binary measured as ./install leaves it: a copy written in one piece
# (its page cache in 2 MiB folios where the kernel allows); LAY2=cp copies
# the second one with cp instead (small folios, as after the binary was
# dropped from the cache and read back).
lay() { # how source destination
  if [ "$1" = cp ]; then cp "$2" "$3"; else dd if="$2" of="$3" bs=67108864 status=none; fi
  chmod +x "$3"
}
WARD=$B/git-ward; lay dd "$WARD_SRC" "$WARD"
WARD2=${WARD2_SRC:+$B/git-ward-2}; [ -z "$WARD2" ] || lay "${LAY2:-dd}" "$WARD2_SRC" "$WARD2"
export HOME=$B GIT_CONFIG_NOSYSTEM=1 XDG_CONFIG_HOME=$B/.config
export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b
unset WARD_AGENT WARD_CONTRACT CLAUDECODE
printf 'int main(void){return 0;}\n' > noop.c && gcc -O2 -o noop noop.c
mkdir "with blank" && lay dd "$WARD_SRC" "with blank/git-ward"
$GIT init -q -b main src
for i in $(seq 1 100); do $GIT -C src commit -q --allow-empty -m $i; $GIT -C src tag v$i; done
printf '#!/bin/sh\ncd "$(dirname "$0")/$1" && t=$(%s tag) && [ -n "$t" ] && %s tag -d $t >/dev/null; exit 0\n' $GIT $GIT > deltags
chmod +x deltags
HOOKS="pre-commit prepare-commit-msg commit-msg pre-push reference-transaction"
VARIANTS="none native ward sh link${WARD2:+ ward2}"
for v in $VARIANTS; do
  $GIT clone -q src $v; $GIT -C $v tag -d $($GIT -C $v tag) >/dev/null
  $GIT -C $v checkout -q -b agent/c1
  case $v in
    native) for h in $HOOKS; do cp noop $v/.git/hooks/$h; done;;
    ward) (cd $v && "$WARD" install >/dev/null);;
    sh) (cd $v && "$B/with blank/git-ward" install >/dev/null);;
    link) (cd $v && "$WARD" install --link >/dev/null);;
    ward2) (cd $v && "$WARD2" install >/dev/null);;
  esac
done
# Interleaved rounds (bench/interleave.py): every variant sees the same machine.
commit=(); fetch=(); prep=()
for v in $VARIANTS; do
  commit+=("$v:native=$GIT -C $B/$v commit -q --allow-empty -m x")
  fetch+=("$v:native=$GIT -C $B/$v fetch -q --no-auto-gc origin refs/tags/*:refs/tags/*")
  prep+=(--prepare "$v=$B/deltags $v")
done
echo "### human commit"
python3 "$here/bench/interleave.py" --rounds "${ROUNDS:-60}" --warmup 10 "${commit[@]}"
echo "### agent commit (WARD_AGENT=1 WARD_CONTRACT=c1)"
WARD_AGENT=1 WARD_CONTRACT=c1 python3 "$here/bench/interleave.py" --rounds "${ROUNDS:-60}" --warmup 10 "${commit[@]}"
echo "### fetch of 100 tags"
python3 "$here/bench/interleave.py" --rounds "${FROUNDS:-10}" --per-round 2 --warmup 2 "${prep[@]}" "${fetch[@]}"
