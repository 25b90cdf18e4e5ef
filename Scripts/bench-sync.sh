#!/usr/bin/env bash
# Measures podfresh's sync (issue #35) against a local gpodder.net-compatible server (gpodder-fastapi-router in
# .build-sync-venv, made by Scripts/sync-test-venv.sh): CPU (user + system) and wall time of podfresh's side of
#   1. a first sync that takes N subscriptions the phone holds (default 5000) into an empty store,
#   2. a sync with nothing changed,
#   3. a sync after the phone removed N/10 and added N/10, and podfresh added N/10 of its own (pushed),
#   4. a sync that pulls A episode actions (default 50000: plays, a tenth of them to the end) for A stored episodes
#      (10 per feed; written into the database by this script, not fetched),
#   5. a sync that pushes A download actions (the outbox filled by this script as A completed downloads would),
#      in pages of 1000.
# Usage: Scripts/bench-sync.sh [N] [podfresh binary] [A]   (default: the release build if there is one, else debug)
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-5000}"
BIN="${2:-}"
A="${3:-50000}"
if [ -z "$BIN" ]; then
  if [ -x .build/release/podfresh ]; then BIN=.build/release/podfresh; else BIN=.build/debug/podfresh; fi
fi
bash Scripts/sync-test-venv.sh
WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
export PODFRESH_SYNC_PASSWORD=bench-password
.build-sync-venv/bin/python Scripts/SyncServers/gpodder_server.py --db "$WORK/gpodder.db" --user bench \
  --password "$PODFRESH_SYNC_PASSWORD" > "$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do grep -q '^listening ' "$WORK/server.log" 2>/dev/null && break; sleep 0.2; done
PORT="$(sed -n 's/^listening //p' "$WORK/server.log")"
URL="http://127.0.0.1:$PORT"
AUTH="bench:$PODFRESH_SYNC_PASSWORD"
post() { curl -sS --fail -u "$AUTH" -H 'Content-Type: application/json' -X POST --data-binary @"$2" "$URL$1" > /dev/null; }
python3 - "$N" "$WORK" <<'PY'
import json, sys
n, work = int(sys.argv[1]), sys.argv[2]
feeds = [f"https://host{i % 500}.example.org/podcast/{i}/feed.xml" for i in range(n)]
json.dump({"add": feeds, "remove": []}, open(f"{work}/phone-add.json", "w"))
tenth = max(1, n // 10)
json.dump({"add": [f"https://new{i % 50}.example.org/{i}.xml" for i in range(tenth)], "remove": feeds[:tenth]},
          open(f"{work}/phone-change.json", "w"))
open(f"{work}/local-adds.txt", "w").write("\n".join(f"https://local{i % 50}.example.org/{i}.xml" for i in range(tenth)))
PY
echo '{"caption":"phone","type":"mobile"}' > "$WORK/device.json"
post "/api/2/devices/bench/phone.json" "$WORK/device.json"
post "/api/2/subscriptions/bench/phone.json" "$WORK/phone-add.json"
DB="$WORK/podfresh.sqlite"
"$BIN" --version >/dev/null
"$BIN" sync setup --database "$DB" --server "$URL" --user bench --device box --sync-with phone > /dev/null
measure() {
  local label="$1"; shift
  /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$@" > "$WORK/out" 2>&1 || { cat "$WORK/out"; exit 1; }
  read -r wall user sys rss < "$WORK/time"
  printf '%-52s wall %6.2f s  cpu %6.2f s (user %.2f, sys %.2f)  max RSS %d MB\n' "$label" "$wall" \
    "$(echo "$user + $sys" | bc)" "$user" "$sys" "$((rss / 1024))"
}
echo "podfresh sync against gpodder-fastapi-router on 127.0.0.1, $N subscriptions ($BIN)"
measure "first sync: take $N subscriptions" "$BIN" sync --database "$DB"
measure "sync, nothing changed" "$BIN" sync --database "$DB"
sleep 1.1
post "/api/2/subscriptions/bench/phone.json" "$WORK/phone-change.json"
xargs "$BIN" add --no-fetch --database "$DB" < "$WORK/local-adds.txt" > /dev/null
measure "sync: pull $((N / 10)) added + $((N / 10)) removed, push $((N / 10))" "$BIN" sync --database "$DB"
echo "subscriptions here: $("$BIN" list --database "$DB" | grep -c 'https://' || true)"
# Episode actions: A stored episodes (10 per feed), A plays on the phone, then A downloads to push.
python3 - "$DB" "$A" "$WORK" <<'PY'
import json, sqlite3, sys, time
db, a, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
con = sqlite3.connect(db)
feeds = [row for row in con.execute("SELECT id, url FROM subscription ORDER BY id")]
now = time.time()
rows, episodes = [], []
for i in range(a):
    sid, url = feeds[i // 10 % len(feeds)]
    guid = f"bench-{i}"
    media = f"https://cdn{i % 97}.example.net/{i}.mp3"
    rows.append((sid, guid, guid, guid, json.dumps([{"url": media, "length": None, "type": "audio/mpeg"}]), now, now))
    episodes.append((url, media, guid))
con.executemany(
    "INSERT OR IGNORE INTO episode (subscriptionId, key, fingerprint, guid, enclosures, transcripts, persons, "
    "alternateEnclosures, firstSeenAt, lastSeenAt) VALUES (?, ?, ?, ?, ?, '[]', '[]', '[]', ?, ?)", rows)
con.commit()
json.dump(episodes, open(f"{work}/episodes.json", "w"))
PY
sleep 6
python3 - "$WORK" <<'PY'
import json, sys, time
work = sys.argv[1]
episodes = json.load(open(f"{work}/episodes.json"))
# Played over the last seconds, the last one now: gpodder.net-compatible servers answer actions dated at or after
# the cursor (the newest action's time), so the next sync reads the newest second's actions again, as it would.
now = time.time()
def stamp(i):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now if i == len(episodes) - 1 else now - 5))
actions = [{"podcast": url, "episode": media, "guid": guid, "action": "play", "device": "phone", "timestamp": stamp(i),
            "started": 0, "position": 1790 if i % 10 == 0 else 600, "total": 1800}
           for i, (url, media, guid) in enumerate(episodes)]
for page in range(0, len(actions), 5000):
    json.dump(actions[page:page + 5000], open(f"{work}/actions-{page // 5000:03d}.json", "w"))
PY
for file in "$WORK"/actions-*.json; do post "/api/2/episodes/bench.json" "$file"; done
measure "sync: pull $A episode actions" "$BIN" sync --database "$DB"
python3 - "$DB" "$WORK" <<'PY'
import json, sqlite3, sys, time
db, work = sys.argv[1], sys.argv[2]
con = sqlite3.connect(db)
now = time.time()
rows = [(url, media, guid, now) for url, media, guid in json.load(open(f"{work}/episodes.json"))]
con.executemany(
    "INSERT INTO syncActionOutbox (podcast, episode, guid, action, timestamp) VALUES (?, ?, ?, 'download', ?)", rows)
con.commit()
PY
measure "sync: push $A download actions" "$BIN" sync --database "$DB"
"$BIN" episodes --database "$DB" --unplayed --limit 1 > /dev/null 2> "$WORK/unplayed" || true
echo "episodes here: $(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM episode').fetchone()[0])" "$DB"), played: $(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM episodePlay WHERE played').fetchone()[0])" "$DB"), left to push: $(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM syncActionOutbox').fetchone()[0])" "$DB")"
