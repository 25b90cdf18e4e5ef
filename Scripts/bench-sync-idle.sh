#!/usr/bin/env bash
# What syncing costs a `watch` that has nothing else to do, to choose the default --sync-interval: a real
# gpodder.net-compatible server (gpodder-fastapi-router in .build-sync-venv, made by Scripts/sync-test-venv.sh) on
# 127.0.0.1, a "phone" device holding every feed of ../shared/corpus/real (served on 127.0.0.1), and podfresh's device
# in its sync group. For each run: a fresh database, `sync setup`, one `refresh` (the first sync and every feed's
# first check), then `watch --quiet` for a warm-up and SECONDS more; the CPU (user + system, from /proc) of the watch
# process and of the server over those SECONDS, and how many `since` requests the server answered in them.
#
# Runs: BEFORE with its default interval; AFTER with --sync-interval 5m (the old default); AFTER with its default;
# AFTER with --sync-interval 5s (many syncs, for the cost of one). Per sync = the difference of the last and the
# second, over the difference of their syncs.
# Usage: Scripts/bench-sync-idle.sh [SECONDS (default 180)] [BEFORE binary] [AFTER binary]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_RUN="${1:-180}"
AFTER="${3:-}"
if [ -z "$AFTER" ]; then
  if [ -x .build/release/podfresh ]; then AFTER=.build/release/podfresh; else AFTER=.build/debug/podfresh; fi
fi
BEFORE="${2:-$AFTER}"
WARM=20
CORPUS="${CORPUS:-../shared/corpus/real}"
bash Scripts/sync-test-venv.sh
WORK="$(mktemp -d)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
export PODFRESH_SYNC_PASSWORD=bench-password
.build-sync-venv/bin/python Scripts/SyncServers/gpodder_server.py --db "$WORK/gpodder.db" --user bench \
  --password "$PODFRESH_SYNC_PASSWORD" > "$WORK/server.log" 2>&1 &
SERVER_PID=$!
PIDS+=("$SERVER_PID")
python3 - "$CORPUS" > "$WORK/feeds.log" 2>&1 <<'PY' &
import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
handler.func.log_message = lambda *args: None
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
print("listening", server.server_address[1], flush=True)
server.serve_forever()
PY
PIDS+=("$!")
for _ in $(seq 1 100); do
  grep -q '^listening ' "$WORK/server.log" 2>/dev/null && grep -q '^listening ' "$WORK/feeds.log" && break
  sleep 0.2
done
URL="http://127.0.0.1:$(sed -n 's/^listening //p' "$WORK/server.log")"
FEEDS="http://127.0.0.1:$(sed -n 's/^listening //p' "$WORK/feeds.log")"
AUTH="bench:$PODFRESH_SYNC_PASSWORD"
post() { curl -sS --fail -u "$AUTH" -H 'Content-Type: application/json' -X POST --data-binary "$2" "$URL$1" > /dev/null; }
post "/api/2/devices/bench/phone.json" '{"caption":"phone","type":"mobile"}'
LIST="$(cd "$CORPUS" && ls ./*.xml | sed "s|^\./|$FEEDS/|" | python3 -c 'import json,sys; print(json.dumps({"add":[l.strip() for l in sys.stdin],"remove":[]}))')"
post "/api/2/subscriptions/bench/phone.json" "$LIST"
COUNT="$(echo "$LIST" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["add"]))')"

cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }   # clock ticks
syncs() { curl -sS "$URL/_test/served" | python3 -c 'import json,sys; print(sum(1 for r in json.load(sys.stdin) if r["method"] == "GET" and "/subscriptions/" in r["path"]))'; }
TICKS="$(getconf CLK_TCK)"
run() {
  local label="$1" bin="$2"; shift 2
  local db="$WORK/$RANDOM.sqlite"
  "$bin" sync setup --database "$db" --server "$URL" --user bench --device "box$RANDOM" --sync-with phone > /dev/null
  "$bin" refresh --database "$db" --quiet > /dev/null 2>&1 || true
  "$bin" watch --database "$db" --quiet "$@" > "$WORK/watch.log" 2>&1 &
  local watch=$!
  PIDS+=("$watch")
  sleep "$WARM"
  local w0 s0 n0 w1 s1 n1
  w0="$(cpu "$watch")"; s0="$(cpu "$SERVER_PID")"; n0="$(syncs)"
  sleep "$SECONDS_PER_RUN"
  w1="$(cpu "$watch")"; s1="$(cpu "$SERVER_PID")"; n1="$(syncs)"
  kill "$watch"; wait "$watch" 2>/dev/null || true
  local n=$((n1 - n0))
  printf '%-44s syncs %4d  watch CPU %6.2f s  server CPU %6.2f s  (per hour: watch %6.1f s, server %6.1f s)\n' \
    "$label" "$n" "$(echo "($w1 - $w0) / $TICKS" | bc -l)" "$(echo "($s1 - $s0) / $TICKS" | bc -l)" \
    "$(echo "($w1 - $w0) / $TICKS * 3600 / $SECONDS_PER_RUN" | bc -l)" \
    "$(echo "($s1 - $s0) / $TICKS * 3600 / $SECONDS_PER_RUN" | bc -l)"
  echo "$label|$n|$((w1 - w0))|$((s1 - s0))" >> "$WORK/results"
}
echo "watch with sync set up, $COUNT feeds from the phone, ${SECONDS_PER_RUN} s each after ${WARM} s warm-up"
echo "before: $BEFORE   after: $AFTER"
run "before, its default interval" "$BEFORE"
run "after, --sync-interval 5m" "$AFTER" --sync-interval 5m
run "after, its default interval" "$AFTER"
run "after, --sync-interval 5s" "$AFTER" --sync-interval 5s
python3 - "$WORK/results" "$TICKS" <<'PY'
import sys
rows = [line.strip().split("|") for line in open(sys.argv[1])]
ticks = int(sys.argv[2])
slow, fast = rows[1], rows[3]
syncs = int(fast[1]) - int(slow[1])
if syncs > 0:
    watch = (int(fast[2]) - int(slow[2])) / ticks / syncs * 1000
    server = (int(fast[3]) - int(slow[3])) / ticks / syncs * 1000
    print(f"one sync that finds nothing: watch {watch:.1f} ms CPU, server {server:.1f} ms CPU ({syncs} syncs apart)")
PY
