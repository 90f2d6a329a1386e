# Shared helpers of the daemon tests (daemon.sh, hostile.sh): sourced after
# the caller sets CUZK (the binary) and TAG ("[daemon prove]"); TMP_PREFIX
# names the temp directory. Defines T (the test's temp directory, removed on
# exit unless DAEMON_KEEP=1), PIDS (killed on exit), and:
#
#   fail MSG            prints FAIL with the daemons' log tails, exits 1
#   note MSG            an indented line of the test's report
#   start_daemon NAME [settings...]
#                       `cuzk serve --foreground` with state in $T/NAME, log
#                       $T/daemon-NAME.log; waits for its URL; sets URL, PORT,
#                       DPID and exports CUZK_URL. LISTEN=ADDR:PORT reuses an
#                       address (default 127.0.0.1:0, a free port);
#                       EXPECT_STARTS=N waits for the Nth start on one log
#   stop_daemon         SIGTERM and wait; the exit code must be 0
#   http METHOD PATH [curl args...]   sets CODE and BODY
#   jget FIELD.PATH     a member of the JSON on stdin
#   expect_code CODE DESC
#   ok DESC CMD...      runs CMD (output in $T/out, $T/err) or fails
#   metric NAME         a value of /metrics
#   wait_for DESC CMD...   until CMD succeeds (every 0.1 s, 60 s at most)
#   rss_kb PID, ms      resident memory; milliseconds since the epoch
T=$(mktemp -d "${TMPDIR:-/tmp}/${TMP_PREFIX:-cuzk-daemon}.XXXXXX")
PIDS=()
cleanup() {
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill -9 "$p" 2>/dev/null; done
  if [ "${DAEMON_KEEP:-0}" = 1 ]; then echo "keeping $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT

fail() {
  echo "FAIL $TAG: $*"
  for f in "$T"/daemon*.log; do [ -f "$f" ] && { echo "---- tail of $f"; tail -n 30 "$f"; }; done
  exit 1
}
note() { echo "  $*"; }

start_daemon() {
  local name=$1; shift
  local log="$T/daemon-$name.log"
  "$CUZK" serve --foreground --listen "${LISTEN:-127.0.0.1:0}" --state-dir "$T/$name" "$@" 2>>"$log" &
  DPID=$!
  PIDS+=("$DPID")
  URL=""
  for _ in $(seq 1 600); do
    # A restart on the same log: wait for this process's line (count first,
    # then read, so the URL cannot be the previous daemon's).
    if [ "$(grep -c 'event=listening' "$log" 2>/dev/null)" -ge "${EXPECT_STARTS:-1}" ]; then
      URL=$(grep -o 'event=listening url=[^ ]*' "$log" | tail -n 1 | sed 's/.*url=//')
      break
    fi
    kill -0 "$DPID" 2>/dev/null || fail "daemon $name exited during start"
    sleep 0.05
  done
  [ -n "$URL" ] || fail "daemon $name did not report its URL"
  PORT=${URL##*:}
  export CUZK_URL=$URL
}

stop_daemon() {
  kill -TERM "$DPID"
  wait "$DPID"
  local rc=$?
  [ $rc = 0 ] || fail "daemon exited $rc after SIGTERM"
}

http() {
  local m=$1 p=$2; shift 2
  BODY=$(curl -sS -o - -w '\n%{http_code}' -X "$m" "$URL$p" "$@")
  CODE=${BODY##*$'\n'}
  BODY=${BODY%$'\n'*}
}
jget() { node -e 'let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{let v=JSON.parse(d);for(const k of process.argv[1].split("."))v=v==null?v:v[k];console.log(typeof v==="object"?JSON.stringify(v):v)})' "$1"; }
expect_code() { [ "$CODE" = "$1" ] || fail "$2: HTTP $CODE (expected $1): $BODY"; }
ok() { local d=$1; shift; "$@" >"$T/out" 2>"$T/err" || fail "$d: exit $?: $* :: $(tail -n 5 "$T/err")"; }
metric() { curl -s --max-time 30 "$URL/metrics" | awk -v m="$1" '$1==m{print $2}'; }
ms() { date +%s%3N; }
rss_kb() { awk '/^VmRSS/{print $2}' "/proc/$1/status"; }

wait_for() {
  local d=$1; shift
  for _ in $(seq 1 600); do "$@" && return 0; sleep 0.1; done
  fail "waited 60 s for: $d"
}
