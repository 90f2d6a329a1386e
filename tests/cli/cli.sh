#!/usr/bin/env bash
# Command-line behaviour that the library tests cannot see: what the `cuzk`
# commands do to the file system, with signals and with hostile paths and
# inputs. One invocation = one CTest test:
#
#   cli.sh <cuzk-binary> <repo-root> <scenario>
#
#   outputs     outputs: /dev/null and /dev/stdout, symlinks, kept modes,
#               outputs that are inputs or each other, directories, FIFOs,
#               255-character names (docs/CLI.md "Output files")
#   signals     SIGTERM / SIGINT at random points of gen and prove: exit 9 or
#               0, no temporary file, the earlier files intact or a whole new
#               pair; a closed stdout pipe
#   inputs      inputs that are not regular files (FIFO, /dev/zero, a
#               directory) fail at once with exit 2 instead of hanging or
#               reading forever
#   messages    usage errors are one line with a hint to --help; errors are
#               one line naming the file (setup prints its warning only after
#               success); out of memory is exit 6 (info under a ulimit)
#   truncate    the zkey truncated while `cuzk prove` reads it: exit 0 with a
#               proof that verifies, or exit 2 with one line naming the key;
#               never a crash (SIGBUS) and never an output
#   concurrent  two provers writing the same proof/public pair at once: the
#               pair left behind always verifies (belongs to one run); the
#               publish windows rarely meet between processes, so
#               tests/unit/test_output.c (threads, no proving) is the check
#               that fails within a second when the directory lock is missing
#   docs        what users read agrees with the tool: every exit code of
#               `cuzk --help` is in README.md's list and docs/CLI.md's table;
#               README's "Building by hand" names every Debian package of
#               scripts/deps.sh and says warnings are errors
#
# Runs as any user; CI runs it as root, where /dev/null must survive.
# Exit 0 = pass, 1 = fail (with the failing command's output).
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 <cuzk> <repo-root> <scenario>" >&2; exit 2; }
CUZK=$1 ROOT=$2 SCEN=$3
D="$ROOT/tests/data/interop/bn128"
T=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
LOG="$T/.log"

fail() {
  echo "FAIL [$SCEN]: $*"
  [ -s "$LOG" ] && { echo "---- output of the last command ----"; tail -n 20 "$LOG"; }
  exit 1
}
note() { echo "  $*"; }
run() { timeout 120 "$@" >"$LOG" 2>&1; RC=$?; }
expect() {   # expect CODE DESC CMD...
  local code=$1 desc=$2; shift 2
  run "$@"
  [ "$RC" = "$code" ] || fail "$desc: exit $RC, expected $code: $*"
  if [ "$code" != 0 ]; then
    [ "$(grep -c . "$LOG")" = 1 ] && grep -q '^Error: ' "$LOG" || fail "$desc: expected one 'Error:' line"
  fi
  note "$desc -> $RC${RC:+ }$( [ "$code" != 0 ] && head -n1 "$LOG")"
}
no_temps() { ! ls -A "$1" | grep -q '\.tmp\.' || fail "temporary files left in $1: $(ls -A "$1" | grep '\.tmp\.')"; }
verifies() {   # verifies VK PUBLIC PROOF
  run "$CUZK" verify "$1" "$2" "$3"
  [ "$RC" = 0 ] || fail "proof $3 with $2 does not verify (exit $RC)"
}
Z="$D/mul.zkey" W="$D/mul.wtns" VK="$D/mul.vkey.json"

scen_outputs() {
  expect 0 "proof and public to /dev/null" "$CUZK" prove "$Z" "$W" /dev/null /dev/null
  [ -c /dev/null ] || fail "/dev/null is no longer a character device"
  timeout 60 "$CUZK" prove "$Z" "$W" /dev/stdout pub.json >out.json 2>"$LOG" || fail "proof to /dev/stdout failed"
  verifies "$VK" pub.json out.json
  note "proof to /dev/stdout (redirected to a file) verifies"
  timeout 60 "$CUZK" prove "$Z" "$W" /dev/stdout pub2.json 2>"$LOG" | cat >piped.json
  verifies "$VK" pub2.json piped.json
  note "proof to /dev/stdout (a pipe) verifies"
  # Symlinks are followed; the link stays a link.
  mkdir real && ln -s real/proof.json link.json && ln -s ../pub.json real/publink.json
  expect 0 "outputs through symlinks" "$CUZK" prove "$Z" "$W" link.json real/publink.json
  [ -L link.json ] && [ -f real/proof.json ] && [ -L real/publink.json ] || fail "a symlink output was replaced"
  verifies "$VK" pub.json real/proof.json
  # Modes kept.
  chmod 0640 real/proof.json
  expect 0 "replacing a 0640 file" "$CUZK" prove "$Z" "$W" real/proof.json pub.json
  [ "$(stat -c %a real/proof.json)" = 640 ] || fail "mode 0640 became $(stat -c %a real/proof.json)"
  chmod 0444 real/proof.json
  if [ "$(id -u)" = 0 ]; then
    expect 0 "replacing a 0444 file as root" "$CUZK" prove "$Z" "$W" real/proof.json pub.json
    [ "$(stat -c %a real/proof.json)" = 444 ] || fail "mode 0444 became $(stat -c %a real/proof.json)"
  else
    cp real/proof.json before.json
    expect 2 "replacing a read-only file" "$CUZK" prove "$Z" "$W" real/proof.json pub.json
    cmp -s before.json real/proof.json || fail "the read-only file changed"
  fi
  # Outputs that are inputs or each other.
  cp "$Z" c.zkey && cp "$W" w.wtns && ln c.zkey hard.zkey && ln -s c.zkey soft.zkey && cp c.zkey orig.zkey
  expect 1 "zkey as proof output" "$CUZK" prove c.zkey w.wtns c.zkey p.json
  expect 1 "witness as public output" "$CUZK" prove c.zkey w.wtns p.json w.wtns
  expect 1 "hard link of the zkey as output" "$CUZK" prove c.zkey w.wtns hard.zkey p.json
  expect 1 "symlink to the zkey as output" "$CUZK" prove c.zkey w.wtns soft.zkey p.json
  expect 1 "zkey as export-vk output" "$CUZK" export-vk c.zkey c.zkey
  cmp -s c.zkey orig.zkey || fail "an input was modified"
  cp "$D/mul.r1cs" x.r1cs && cp x.r1cs orig.r1cs
  expect 1 "setup x.r1cs x.r1cs" "$CUZK" setup x.r1cs x.r1cs
  cmp -s x.r1cs orig.r1cs || fail "setup modified its input"
  expect 1 "proof and public the same file" "$CUZK" prove c.zkey w.wtns same.json same.json
  expect 1 "proof and public the same file, two spellings" "$CUZK" prove c.zkey w.wtns ./same.json ../"$(basename "$T")"/same.json
  [ ! -e same.json ] || fail "same.json was written"
  expect 1 "gen g g" "$CUZK" gen --constraints 8 g g
  [ ! -e g ] || fail "gen wrote g"
  # Refused kinds; FIFOs do not hang.
  mkdir outdir
  expect 2 "a directory as output" "$CUZK" prove c.zkey w.wtns outdir p.json
  [ -d outdir ] || fail "the directory was replaced"
  mkfifo fifo
  expect 2 "a FIFO with no reader as output" "$CUZK" prove c.zkey w.wtns fifo p.json
  grep -q '^Error: fifo: cannot open the FIFO for writing (it has no reader)' "$LOG" || fail "fifo: $(head -n1 "$LOG")"
  # /dev/tty without a controlling terminal (setsid): a character device, not "a FIFO".
  if command -v setsid >/dev/null && [ -c /dev/tty ]; then
    expect 2 "/dev/tty without a terminal as output" setsid -w "$CUZK" prove c.zkey w.wtns /dev/tty p.json
    grep -q '^Error: /dev/tty: cannot open the character device for writing: ' "$LOG" && ! grep -q FIFO "$LOG" \
      || fail "/dev/tty: $(head -n1 "$LOG")"
  fi
  # The shell holds the FIFO open (read-write, so opening it does not block):
  # a reader exists before prove opens it, whenever cat gets there. Closing
  # the shell's end after prove lets cat see the end of the data.
  exec 3<>fifo
  cat fifo >fromfifo 3>&- & local catpid=$! i
  expect 0 "a FIFO with a reader as output" "$CUZK" prove c.zkey w.wtns fifo pf.json
  for i in $(seq 1200); do   # cat has the FIFO open (it cannot block: fd 3 writes)
    ls -l /proc/$catpid/fd 2>/dev/null | grep -q "$(readlink -f fifo)" && break
    kill -0 $catpid 2>/dev/null || break
    sleep 0.05
  done
  exec 3>&-
  wait $catpid || fail "reading the proof from the FIFO failed"
  verifies "$VK" pf.json fromfifo
  [ -p fifo ] || fail "the FIFO was replaced"
  # 255-character names (NAME_MAX) work; 256 do not.
  local n255 n256
  n255=$(printf 'p%.0s' $(seq 255)) n256=$(printf 'p%.0s' $(seq 256))
  expect 0 "a 255-character output name" "$CUZK" prove c.zkey w.wtns "$n255" "${n255%?}q"
  expect 0 "a 255-character output name, replaced" "$CUZK" prove c.zkey w.wtns "$n255" "${n255%?}q"
  verifies "$VK" "${n255%?}q" "$n255"
  expect 2 "a 256-character output name" "$CUZK" prove c.zkey w.wtns "$n256" x.json
  no_temps "$T"; no_temps "$T/real"
}

# Sends SIG to CMD... after DELAY; the command must exit 9 (cancelled) or 0.
# Sets RC.
interrupt() {
  local sig=$1 delay=$2; shift 2
  "$@" >"$LOG" 2>&1 & local pid=$!
  # The delay counts from the moment the command catches the signal (SigCgt
  # bit 15 for SIGTERM, 2 for SIGINT): before that it is still starting up
  # and the default action would apply.
  local bit=$([ "$sig" = TERM ] && echo 14 || echo 1) i
  for i in $(seq 500); do
    local cgt
    cgt=$(sed -n 's/^SigCgt:\s*//p' /proc/$pid/status 2>/dev/null) || break
    [ -n "$cgt" ] || break
    (( (16#$cgt >> bit) & 1 )) && break
    sleep 0.01
  done
  sleep "$delay"; kill -s "$sig" $pid 2>/dev/null; wait $pid; RC=$?
  [ "$RC" = 9 ] || [ "$RC" = 0 ] || fail "$* after SIG$sig at ${delay}s: exit $RC (expected 9 or 0)"
  if [ "$RC" = 9 ]; then grep -q '^Error: .*cancel' "$LOG" || fail "exit 9 without an 'Error: ... cancelled' line"; fi
}

scen_signals() {
  # gen: the write phase streams both files for most of its run.
  "$CUZK" gen --constraints 2^8 old.r1cs old.wtns >"$LOG" 2>&1 || fail "gen failed"
  local seen9=0 d sig
  for d in 0.05 0.2 0.4 0.6 0.8 1.0 1.5; do
    for sig in TERM INT; do
      cp old.r1cs g.r1cs && cp old.wtns g.wtns
      interrupt $sig $d "$CUZK" gen --constraints 2^19 g.r1cs g.wtns
      no_temps "$T"
      if [ "$RC" = 9 ]; then
        seen9=1
        grep -Eq '^Error: .+: cancelled' "$LOG" || fail "SIG$sig at ${d}s: the cancellation names no file: $(head -n1 "$LOG")"
        cmp -s old.r1cs g.r1cs && cmp -s old.wtns g.wtns || fail "SIG$sig at ${d}s: exit 9 but the earlier files changed"
      else
        [ "$(stat -c %s g.wtns)" -gt 1000000 ] || fail "exit 0 but g.wtns is not the new witness"
      fi
    done
  done
  [ $seen9 = 1 ] || fail "no run was interrupted (gen too fast?)"
  note "gen: SIGTERM / SIGINT at 0.05..1.5 s: exit 9 with no temporary file and the old pair, or a new pair"
  # prove: whole pairs only.
  "$CUZK" gen --constraints 2^12 big.r1cs big.wtns >"$LOG" 2>&1 && "$CUZK" setup big.r1cs big.zkey >"$LOG" 2>&1 \
    && "$CUZK" export-vk big.zkey big.vk.json >"$LOG" 2>&1 || fail "making a 2^12 key failed"
  "$CUZK" prove big.zkey big.wtns p.json pub.json >"$LOG" 2>&1 || fail "prove failed"
  for d in 0.02 0.05 0.1 0.15 0.2 0.3; do
    cp p.json p0.json && cp pub.json pub0.json
    interrupt TERM $d "$CUZK" prove -t 1 big.zkey big.wtns p.json pub.json
    no_temps "$T"
    if [ "$RC" = 9 ]; then cmp -s p0.json p.json && cmp -s pub0.json pub.json || fail "exit 9 but proof/public changed"
      grep -Eq '^Error: .+: cancelled' "$LOG" || fail "prove: the cancellation names no file: $(head -n1 "$LOG")"
    else verifies big.vk.json pub.json p.json; fi
  done
  note "prove: SIGTERM at 0.02..0.3 s: the old pair or a new pair that verifies, never temporaries"
  # A reader that goes away: an I/O error (exit 2), not a kill, and no temporary file.
  timeout 60 "$CUZK" prove "$Z" "$W" /dev/stdout pp.json 2>"$LOG" | head -c 1 >/dev/null
  local rcs=("${PIPESTATUS[@]}")
  [ "${rcs[0]}" = 2 ] || [ "${rcs[0]}" = 0 ] || fail "prove to a closed pipe: exit ${rcs[0]}"
  no_temps "$T"
  note "prove to a pipe closed early -> exit ${rcs[0]}, no temporary file"
}

scen_inputs() {
  mkfifo fifo && mkdir dir
  local bad
  for bad in fifo /dev/zero dir; do
    expect 2 "prove with $bad as the zkey" "$CUZK" prove "$bad" "$W" p.json pub.json
    expect 2 "prove with $bad as the witness" "$CUZK" prove "$Z" "$bad" p.json pub.json
    expect 2 "verify with $bad as the key" "$CUZK" verify "$bad" "$D/mul.public.json" "$D/mul.proof.json"
    expect 2 "verify with $bad as public.json" "$CUZK" verify "$VK" "$bad" "$D/mul.proof.json"
    expect 2 "verify with $bad as the proof" "$CUZK" verify "$VK" "$D/mul.public.json" "$bad"
    expect 2 "setup with $bad as the r1cs" "$CUZK" setup "$bad" out.zkey
    expect 2 "info on $bad" "$CUZK" info "$bad"
  done
  [ ! -e p.json ] && [ ! -e out.zkey ] || fail "an output was written"
  # "-" (standard input) is not read: said as such (usage, exit 1), not "No such file".
  local what args
  for args in "prove - $W p.json pub.json|a zkey file" "prove $Z - p.json pub.json|a wtns file" \
      "verify - $D/mul.public.json $D/mul.proof.json|a verification key" \
      "verify $VK - $D/mul.proof.json|a public-signals file" "verify $VK $D/mul.public.json -|a proof" \
      "setup - out.zkey|an r1cs file" "info -|an input file"; do
    what=${args#*|}
    # shellcheck disable=SC2086
    expect 1 "${args%|*}" "$CUZK" ${args%|*}
    grep -q "^Error: -: '-' (standard input) is not supported for $what; " "$LOG" || fail "${args%|*}: $(head -n1 "$LOG")"
  done
  # A file named "-" is a file.
  cp "$Z" ./-
  expect 0 "prove with a file named '-' as the zkey" "$CUZK" prove - "$W" p.json pub.json
  rm -f ./- p.json pub.json
  no_temps "$T"
}

scen_messages() {
  local cmdline
  for cmdline in "" "nope" "prove a b" "prove --nope $Z $W p q" "verify --threads x a b c" "gen --constraints 2^ a b" \
      "gen --constraints 2^28 a b" "gen --constraints x a b" "gen --public -1 a b" "gen --seed 12x a b" \
      "setup a" "info" "export-vk a b c" "prove --verify --no-verify $Z $W p q" \
      "prove --verbose=1 $Z $W p q" "prove $Z $W p q --threads" "prove --gpu=x $Z $W p q" "prove --ver $Z $W p q" \
      "setup --format" "verify --format zcash a b c" "status --bogus" "await" "workers --url" "bench serve" \
      "serve --nope" "serve --listen" "serve --foreground=1" "serve x" "plan --tiers x"; do
    # shellcheck disable=SC2086
    run "$CUZK" $cmdline
    [ "$RC" = 1 ] || fail "cuzk $cmdline: exit $RC, expected 1 (usage)"
    [ "$(grep -c . "$LOG")" = 1 ] || fail "cuzk $cmdline: $(grep -c . "$LOG") lines, expected one"
    grep -q "^Error: .*--help')\$" "$LOG" || fail "cuzk $cmdline: no 'Error: ... (see ... --help)' line"
  done
  note "usage errors: one line with a hint to --help ($(head -n1 "$LOG"))"
  # cuzk serve's flags come from the settings table; a bool one stands alone or takes its value
  [ "$("$CUZK" serve --paused false --print-config | grep '^paused')" = "paused = false" ] &&
    [ "$("$CUZK" serve --print-config --paused | grep '^paused')" = "paused = true" ] ||
    fail "serve --paused [false]: $("$CUZK" serve --paused false --print-config 2>&1 | grep paused)"
  # options after the files, a unique prefix of a long name, "--" before a file named like an option
  run "$CUZK" plan "$Z" --gpu-m 16G
  [ "$RC" = 0 ] && grep -q "^tier     1:" "$LOG" || fail "plan <zkey> --gpu-m 16G: exit $RC, $(head -n1 "$LOG")"
  cp "$Z" ./--k.zkey
  run "$CUZK" info -- --k.zkey
  [ "$RC" = 0 ] || fail "info -- --k.zkey: exit $RC, $(head -n1 "$LOG")"
  # The limit of triples a run is said as such (and documented in --help).
  local many=() i
  for i in $(seq 257); do many+=("$W" "p$i.json" "pub$i.json"); done
  run "$CUZK" prove "$Z" "${many[@]}"
  [ "$RC" = 1 ] && grep -q "^Error: at most 256 (witness, proof, public) triples a run" "$LOG" \
    || fail "prove with 257 triples: exit $RC, $(head -n1 "$LOG")"
  "$CUZK" prove --help | grep -q "most 256 a run" || fail "prove --help does not give the 256-triple limit"
  note "257 triples -> 1: $(head -n1 "$LOG")"
  [ ! -e a ] && [ ! -e p ] || fail "a usage error wrote a file"
  expect 2 "setup on a missing r1cs (no warning line)" "$CUZK" setup missing.r1cs out.zkey
  cp "$D/mul.r1cs" m.r1cs
  run "$CUZK" setup m.r1cs m.zkey
  [ "$RC" = 0 ] && grep -q '^WARNING: m.zkey is an INSECURE' "$LOG" || fail "setup: no warning after success"
  # Out of memory: exit 6, one line naming the file (20 MB of "1" needs
  # 160 MB of values: more than the address space allowed here).
  node -e 'process.stdout.write("[" + Array(5000000).fill("\"1\"").join(",") + "]")' >big.json 2>/dev/null \
    || python3 -c 'print("[" + ",".join(["\"1\""] * 5000000) + "]")' >big.json
  (ulimit -v 120000; "$CUZK" info big.json >"$LOG" 2>&1); RC=$?
  [ "$RC" = 6 ] || fail "info under a 120 MB ulimit: exit $RC, expected 6 (out of memory)"
  grep -q '^Error: big.json: out of memory' "$LOG" || fail "info: no 'Error: big.json: out of memory' line"
  note "info out of memory -> 6: $(head -n1 "$LOG")"
  # verify compares the count of public signals with the key before reading
  # them: the same file under the same limit is "inputs disagree" (4), not 6.
  (ulimit -v 120000; "$CUZK" verify "$VK" big.json "$D/mul.proof.json" >"$LOG" 2>&1); RC=$?
  [ "$RC" = 4 ] || fail "verify with 5000000 public signals under a 120 MB ulimit: exit $RC, expected 4"
  grep -q '^Error: big.json: 5000000 public signals, but .*mul.vkey.json expects 2$' "$LOG" \
    || fail "verify: no 'Error: big.json: 5000000 public signals, but ... expects 2' line"
  note "verify, too many public signals -> 4: $(head -n1 "$LOG")"
}

scen_docs() {
  local help codes n meaning readme_list pkgs p
  help=$("$CUZK" --help) || fail "cuzk --help failed"
  # "Exit codes: 0 ok, 1 usage, ..., 11 the daemon refused the request." -> one "N meaning" a line
  codes=$(printf '%s\n' "$help" | sed -n '/^Exit codes:/,/\.$/p' | sed 's/^Exit codes://' | tr -d '\n' \
          | sed 's/  */ /g; s/\.$//' | tr ',' '\n' | sed 's/^ *//')
  [ "$(printf '%s\n' "$codes" | grep -c '^[0-9]')" -ge 12 ] || fail "cuzk --help lists fewer than 12 exit codes: $codes"
  readme_list=$(sed -n '/Exit codes: 0 ok/,/\.$/p' "$ROOT/README.md" | tr -d '\n' | sed 's/  */ /g')
  while IFS= read -r line; do
    n=${line%% *} meaning=${line#* }
    printf '%s' "$readme_list" | grep -q "[ :]$n ${meaning%% *}" || fail "README.md's exit codes lack '$n ${meaning%% *}'"
    grep -q "^| $n | " "$ROOT/docs/CLI.md" || fail "docs/CLI.md's exit-code table lacks $n"
  done <<<"$codes"
  note "exit codes 0..$n of cuzk --help: in README.md and docs/CLI.md"
  pkgs=$(sed -n '/^pkgs=(/,/)/p' "$ROOT/scripts/deps.sh" | tr -d '()' | sed 's/^pkgs=//' | tr -s ' \n' '\n')
  for p in $pkgs; do
    sed -n '/^## Building by hand/,/^## /p' "$ROOT/README.md" | grep -q "\b$p\b" \
      || fail "README.md 'Building by hand' does not name $p (scripts/deps.sh)"
  done
  sed -n '/^## Building by hand/,/^## /p' "$ROOT/README.md" | grep -q -- '-Werror' \
    || fail "README.md 'Building by hand' does not say warnings are errors"
  note "README 'Building by hand': the $(printf '%s\n' $pkgs | wc -l) packages of scripts/deps.sh, -Werror"
}

scen_truncate() {
  "$CUZK" gen --constraints 2^13 --seed 3 t.r1cs t.wtns >"$LOG" 2>&1 && "$CUZK" setup t.r1cs orig.zkey >"$LOG" 2>&1 \
    && "$CUZK" export-vk orig.zkey t.vk.json >"$LOG" 2>&1 || fail "making a 2^13 key failed"
  local d size ok=0 err=0
  size=$(stat -c %s orig.zkey)
  for d in 0 0.02 0.05 0.1 0.2 0.3 0.5 0.8 1.5 3; do
    cp orig.zkey k.zkey; rm -f p.json pub.json
    "$CUZK" prove -t 1 k.zkey t.wtns p.json pub.json >"$LOG" 2>&1 & local pid=$!
    sleep $d; truncate -s $((size / 3)) k.zkey
    wait $pid; RC=$?
    case $RC in
      0) verifies t.vk.json pub.json p.json; ok=$((ok + 1)) ;;
      2|3) [ "$(grep -c . "$LOG")" = 1 ] && grep -q '^Error: k.zkey' "$LOG" || fail "exit $RC without one 'Error: k.zkey' line"
           [ ! -e p.json ] && [ ! -e pub.json ] || fail "exit $RC but an output was written"
           err=$((err + 1)) ;;
      *) fail "prove with the key truncated after ${d}s: exit $RC (a crash?)" ;;
    esac
  done
  no_temps "$T"
  note "key truncated during prove: $ok proofs that verify, $err one-line errors, no crash"
}

scen_concurrent() {
  local V1="$D/mul.vkey.json" V2="$D/manypub.vkey.json" i bad=0
  for i in $(seq 30); do
    "$CUZK" prove -t 1 "$D/mul.zkey" "$D/mul.wtns" p.json pub.json 2>"$LOG" & local a=$!
    "$CUZK" prove -t 1 "$D/manypub.zkey" "$D/manypub.wtns" p.json pub.json 2>>"$LOG" & local b=$!
    wait $a || fail "run $i: first prover failed"
    wait $b || fail "run $i: second prover failed"
    if ! "$CUZK" verify "$V1" pub.json p.json >/dev/null 2>&1 && ! "$CUZK" verify "$V2" pub.json p.json >/dev/null 2>&1; then
      bad=$((bad + 1))
    fi
  done
  [ $bad = 0 ] || fail "$bad of 30 concurrent pairs mix two runs"
  no_temps "$T"
  note "30 pairs of concurrent provers: every proof/public pair verifies"
}

case "$SCEN" in
  outputs|signals|inputs|messages|truncate|concurrent|docs) ;;
  *) echo "unknown scenario $SCEN" >&2; exit 2 ;;
esac
[ -x "$CUZK" ] || { echo "FAIL: $CUZK not executable"; exit 1; }
echo "[cli $SCEN]"
"scen_$SCEN"
echo "PASS [cli $SCEN]"
