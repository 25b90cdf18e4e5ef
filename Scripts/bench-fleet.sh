#!/usr/bin/env bash
# Fleet benchmark (not a test): N generated feeds served by nginx on 127.0.0.1 (../shared/bench, real ETag/304/gzip),
# refreshed by 1, 2 and 4 podfresh worker processes sharing one local PostgreSQL, and by one podfresh on SQLite over
# the same corpus in the same run. Each case runs cold (every feed new) and warm (`--all` again: every feed answers
# 304). Reports wall, CPU, peak RSS and requests (../shared/bench/measure.py), feeds per second, and how many URLs
# nginx served more than once in one phase (duplicate fetches: the fleet must have none).
#
#   Scripts/bench-fleet.sh [N]        N feeds (default 1000)
#   JOBS=5 WORKERS="1 2 4" REPS=1 BENCH_PORT=18080 PG_PORT=55499 PODFRESH_BIN=path (default: a release build)
#   PODFRESH_BENCH_PG=postgres://user@host:port  use that server instead of a throwaway cluster
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
N="${1:-1000}"
JOBS="${JOBS:-5}"
REPS="${REPS:-1}"
WORKERS="${WORKERS:-1 2 4}"
PG_PORT="${PG_PORT:-55499}"
export BENCH_WORK="${BENCH_WORK:-${TMPDIR:-/tmp}/podfresh-fleet-bench}"
source "$ROOT/Scripts/bench-kit.sh"
bench_kit_copy

need=()
command -v nginx >/dev/null || need+=(nginx)
command -v psql >/dev/null || need+=(postgresql-client)
if [ -z "${PODFRESH_BENCH_PG:-}" ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then need+=(postgresql); fi
bench_install "${need[@]}"

bench_serve_corpus "$N"

# A throwaway PostgreSQL cluster on loopback (as the postgres user when run as root: PostgreSQL refuses root).
PGDIR="$KIT/pg"
stop_pg() {
  if [ -z "${PODFRESH_BENCH_PG:-}" ] && [ -f "$PGDIR/data/postmaster.pid" ]; then
    $AS_PG "$PGBIN/pg_ctl" -D "$PGDIR/data" -m fast stop >/dev/null 2>&1 || true
  fi
}
cleanup() { "$KIT/stop_nginx.sh" >/dev/null 2>&1 || true; stop_pg; }
trap cleanup EXIT
if [ -n "${PODFRESH_BENCH_PG:-}" ]; then
  PG="$PODFRESH_BENCH_PG"
else
  PGBIN="$(dirname "$(ls -d /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")"
  AS_PG=""
  [ "$(id -u)" = 0 ] && AS_PG="runuser -u postgres --"
  rm -rf "$PGDIR"; mkdir -p "$PGDIR"
  [ "$(id -u)" = 0 ] && chown postgres "$PGDIR"
  $AS_PG "$PGBIN/initdb" -D "$PGDIR/data" --auth=trust -U postgres >/dev/null
  $AS_PG "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/log" -w \
    -o "-p $PG_PORT -k $PGDIR -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null
  PG="postgres://postgres@127.0.0.1:$PG_PORT"
fi

bench_binary
OUT="$KIT/results-fleet-$(date +%Y%m%d-%H%M%S).jsonl"
rm -f "$KIT/duplicates.txt"
M=(python3 "$KIT/measure.py" --out "$OUT" --feeds "$N")
LOG="$KIT/run/access.log"
echo "corpus: $CORPUS ($N feeds, $(du -sh --exclude='*.gz' "$CORPUS/feeds" | cut -f1)); results: $OUT"

# One phase: the command under measure.py, then how many feed URLs nginx served more than once during it.
phase() {
  local tool="$1" case="$2" rep="$3"; shift 3
  local before; before=$(wc -l < "$LOG")
  "${M[@]}" --tool "$tool" --case "$case" --rep "$rep" -- "$@" || true
  local lines dups
  lines=$(tail -n +"$((before + 1))" "$LOG" | grep -c '\.xml' || true)
  dups=$(tail -n +"$((before + 1))" "$LOG" | awk '{print $4}' | grep '\.xml' | sort | uniq -d | wc -l)
  echo "  $tool / $case: $lines feed requests, $dups URLs fetched more than once" | tee -a "$KIT/duplicates.txt"
}

for rep in $(seq "$REPS"); do
  DB="$KIT/podfresh-$rep.sqlite"
  rm -f "$DB" "$DB"-* "$DB.lock"
  "$BIN" import --database "$DB" "$CORPUS/feeds.opml" >/dev/null
  phase "sqlite jobs=$JOBS" "1 cold" "$rep" "$BIN" refresh --quiet --database "$DB" --jobs "$JOBS" --per-host "$JOBS" --all
  phase "sqlite jobs=$JOBS" "2 warm (--all, 304)" "$rep" \
    "$BIN" refresh --quiet --database "$DB" --jobs "$JOBS" --per-host "$JOBS" --all

  for w in $WORKERS; do
    NAME="fleet_w${w}_r$rep"
    psql -q "$PG/postgres" -c "DROP DATABASE IF EXISTS $NAME" -c "CREATE DATABASE $NAME"
    URL="$PG/$NAME"
    "$BIN" import --database "$URL" "$CORPUS/feeds.opml" >/dev/null
    # Workers run as a fleet does: each claims what is due. --per-host counts over all workers together, so the
    # fleet gets w times one worker's limit. Before the warm phase every feed is made due again (as its schedule
    # would after its interval), so each is checked once more, conditionally.
    RUN="for i in \$(seq $w); do '$BIN' refresh --quiet --database '$URL' --jobs $JOBS --per-host $((JOBS * w)) & done; wait"
    phase "postgres workers=$w" "1 cold" "$rep" bash -c "$RUN"
    psql -q "$URL" -c "UPDATE subscription SET next_check_at = NULL"
    phase "postgres workers=$w" "2 warm (due, 304)" "$rep" bash -c "$RUN"
    echo "  episodes stored: $(psql -tAq "$URL" -c 'select count(*) from episode')"
  done
done
python3 "$KIT/summarize.py" "$OUT"
python3 - "$OUT" "$N" <<'EOF'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
n = int(sys.argv[2])
print("\nfeeds per second (N / wall), median over reps:")
by = {}
for r in rows:
    by.setdefault((r["tool"], r["case"]), []).append(r["wall_s"])
for (tool, case), walls in sorted(by.items()):
    walls.sort()
    wall = walls[len(walls) // 2]
    print(f"  {tool:24} {case:22} wall {wall:7.2f} s  {n / wall:8.1f} feeds/s")
EOF
cat "$KIT/duplicates.txt"; rm -f "$KIT/duplicates.txt"
