#!/usr/bin/env bash
# Podping benchmark (not a test): 1000 subscriptions on a loopback feed server with a fake Hive chain beside it
# (Scripts/bench_podping.py: a block every 3 s, carrying a podping for each feed that just gained an episode, 30 new
# episodes a minute). Two watchers run side by side for the same time, each against its own copy of the server
# (same seed, so the same feeds gain the same episodes at the same moments):
#   push:  podfresh watch --podping --podping-node http://127.0.0.1:PORT/hive
#   poll:  podfresh watch                       (polling alone, on the learned schedule)
# Reports, for each: the seconds from the ping's block to the stored episode (median, p95; episodes not stored by the
# end are counted apart), feed requests made, and the watcher's CPU time and peak RSS.
#
#   Scripts/bench-podping.sh [MINUTES]     default 10
#   FEEDS=1000 PUSH_PORT=18510 POLL_PORT=18520 PODFRESH_BIN=path (default: a release build of this tree)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
MINUTES="${1:-10}"
FEEDS="${FEEDS:-1000}"
PUSH_PORT="${PUSH_PORT:-18510}"
POLL_PORT="${POLL_PORT:-18520}"
WORK="${BENCH_WORK:-${TMPDIR:-/tmp}/podfresh-podping-bench}"
rm -rf "$WORK"; mkdir -p "$WORK"
if [ -n "${PODFRESH_BIN:-}" ]; then BIN="$(realpath "$PODFRESH_BIN")"; else
  swift build -c release --product podfresh 2>&1 | tail -1
  BIN="$(swift build -c release --show-bin-path)/podfresh"
fi
command -v sqlite3 >/dev/null || { echo "needs sqlite3 (apt-get install sqlite3)"; exit 1; }

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

for mode in push poll; do
  port=$([ "$mode" = push ] && echo "$PUSH_PORT" || echo "$POLL_PORT")
  python3 "$ROOT/Scripts/bench_podping.py" --port "$port" --feeds "$FEEDS" --log "$WORK/$mode-published.jsonl" \
    --seed 7 >"$WORK/$mode-server.log" 2>&1 &
  pids+=($!)
done
sleep 2
for mode in push poll; do
  port=$([ "$mode" = push ] && echo "$PUSH_PORT" || echo "$POLL_PORT")
  { echo '<?xml version="1.0"?><opml version="2.0"><body>'
    for i in $(seq 0 $((FEEDS - 1))); do echo "<outline type=\"rss\" text=\"Show $i\" xmlUrl=\"http://127.0.0.1:$port/feed/$i.xml\"/>"; done
    echo '</body></opml>'; } >"$WORK/$mode.opml"
  "$BIN" import --database "$WORK/$mode.sqlite" "$WORK/$mode.opml" >/dev/null
  # The first check of every feed, so each has its learned schedule before the clock starts.
  "$BIN" refresh --database "$WORK/$mode.sqlite" --quiet >/dev/null
done

"$BIN" watch --database "$WORK/push.sqlite" --quiet --podping --podping-node "http://127.0.0.1:$PUSH_PORT/hive" \
  >"$WORK/push-watch.out" 2>"$WORK/push-watch.err" &
PUSH_PID=$!; pids+=($PUSH_PID)
"$BIN" watch --database "$WORK/poll.sqlite" --quiet >"$WORK/poll-watch.out" 2>"$WORK/poll-watch.err" &
POLL_PID=$!; pids+=($POLL_PID)
sleep 5
before_push=$(curl -s "http://127.0.0.1:$PUSH_PORT/stats"); before_poll=$(curl -s "http://127.0.0.1:$POLL_PORT/stats")
curl -s "http://127.0.0.1:$PUSH_PORT/start" >/dev/null; curl -s "http://127.0.0.1:$POLL_PORT/start" >/dev/null
cpu() { awk '{print ($14 + $15) / 100}' "/proc/$1/stat"; }
cpu_push0=$(cpu $PUSH_PID); cpu_poll0=$(cpu $POLL_PID)
echo "running for $MINUTES min (push pid $PUSH_PID, poll pid $POLL_PID); work folder $WORK"
sleep $((MINUTES * 60))
# Publishing stops; the last episodes get 20 s to arrive before the count.
curl -s "http://127.0.0.1:$PUSH_PORT/stop" >/dev/null; curl -s "http://127.0.0.1:$POLL_PORT/stop" >/dev/null
sleep 20
after_push=$(curl -s "http://127.0.0.1:$PUSH_PORT/stats"); after_poll=$(curl -s "http://127.0.0.1:$POLL_PORT/stats")
cpu_push=$(echo "$(cpu $PUSH_PID) - $cpu_push0" | bc); cpu_poll=$(echo "$(cpu $POLL_PID) - $cpu_poll0" | bc)
rss_push=$(awk '/VmHWM/ {print $2}' "/proc/$PUSH_PID/status"); rss_poll=$(awk '/VmHWM/ {print $2}' "/proc/$POLL_PID/status")
kill -TERM $PUSH_PID $POLL_PID; wait $PUSH_PID $POLL_PID 2>/dev/null || true

python3 - "$WORK" "$MINUTES" "$before_push" "$after_push" "$before_poll" "$after_poll" \
  "$cpu_push" "$cpu_poll" "$rss_push" "$rss_poll" <<'PY'
import json, sqlite3, statistics, sys
work, minutes = sys.argv[1], float(sys.argv[2])
stats = {m: (json.loads(sys.argv[i]), json.loads(sys.argv[i + 1])) for m, i in (("push", 3), ("poll", 5))}
cpu = {"push": float(sys.argv[7]), "poll": float(sys.argv[8])}
rss = {"push": int(sys.argv[9]) / 1024, "poll": int(sys.argv[10]) / 1024}
def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))] if values else None
print(f"| watcher | episodes published | stored by the end | median s | p95 s | max s | feed requests (304) | chain requests | CPU s | peak RSS MiB |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for mode in ("push", "poll"):
    published = [json.loads(l) for l in open(f"{work}/{mode}-published.jsonl")]
    db = sqlite3.connect(f"{work}/{mode}.sqlite")
    seen = dict(db.execute("SELECT guid, firstSeenAt FROM episode WHERE guid LIKE '%-new%'"))
    lat = [seen[p["guid"]] - p["block_time"] for p in published if p["guid"] in seen]
    before, after = stats[mode]
    feeds = after["feed"] - before["feed"]; nm = after["not_modified"] - before["not_modified"]
    rpc = after["rpc"] - before["rpc"]
    f = lambda v: "–" if v is None else f"{v:.2f}"
    print(f"| {mode} | {len(published)} | {len(lat)} | {f(statistics.median(lat) if lat else None)} | {f(pct(lat, 95))} | "
          f"{f(max(lat) if lat else None)} | {feeds} ({nm}) | {rpc} | {cpu[mode]:.1f} | {rss[mode]:.0f} |")
PY
