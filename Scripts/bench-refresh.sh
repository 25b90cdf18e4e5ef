#!/usr/bin/env bash
# Refresh benchmark (not a test): N generated feeds served by nginx on 127.0.0.1 with real ETag/Last-Modified/gzip,
# refreshed by podfresh cold (every feed new) and warm (`--all`: every feed answers 304), and by newsboat cold in the
# same run for comparison. Reports wall, CPU, peak RSS, requests and 304s (../shared/bench/measure.py).
#
#   Scripts/bench-refresh.sh [N]       N feeds (default 1000)
#   JOBS=5 NEWSBOAT=0|1 BENCH_PORT=18080 REPS=1 PODFRESH_BIN=path (default: a release build of this tree)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
N="${1:-1000}"
JOBS="${JOBS:-5}"
REPS="${REPS:-1}"
NEWSBOAT="${NEWSBOAT:-1}"
export BENCH_WORK="${BENCH_WORK:-${TMPDIR:-/tmp}/podfresh-refresh-bench}"
source "$ROOT/Scripts/bench-kit.sh"
bench_kit_copy

need=()
for c in nginx:nginx newsboat:newsboat sqlite3:sqlite3; do command -v "${c%%:*}" >/dev/null || need+=("${c#*:}"); done
bench_install "${need[@]}"

bench_serve_corpus "$N"
trap '"$KIT/stop_nginx.sh" >/dev/null 2>&1 || true' EXIT
bench_binary
OUT="$KIT/results-refresh-$(date +%Y%m%d-%H%M%S).jsonl"
M=(python3 "$KIT/measure.py" --out "$OUT" --feeds "$N")
echo "corpus: $CORPUS ($N feeds, $(du -sh --exclude='*.gz' "$CORPUS/feeds" | cut -f1)); results: $OUT"

for rep in $(seq "$REPS"); do
  DB="$KIT/podfresh-$rep.sqlite"
  rm -f "$DB" "$DB"-* "$DB.lock"
  "$BIN" import --database "$DB" "$CORPUS/feeds.opml" >/dev/null
  CNT="sqlite3 $DB 'select count(*) from episode'"
  "${M[@]}" --tool "podfresh jobs=$JOBS" --case "1 cold" --rep "$rep" --count-cmd "$CNT" -- \
    "$BIN" refresh --database "$DB" --jobs "$JOBS" --per-host "$JOBS" --all || true
  "${M[@]}" --tool "podfresh jobs=$JOBS" --case "2 warm (--all, 304)" --rep "$rep" --count-cmd "$CNT" -- \
    "$BIN" refresh --database "$DB" --jobs "$JOBS" --per-host "$JOBS" --all || true
  if [ "$NEWSBOAT" = 1 ]; then
    NBD="$KIT/run/newsboat"; rm -rf "$NBD"; mkdir -p "$NBD/home"; echo "reload-threads $JOBS" > "$NBD/config"
    "${M[@]}" --tool "newsboat threads=$JOBS" --case "1 cold" --rep "$rep" \
      --count-cmd "sqlite3 $NBD/cache.db 'select count(*) from rss_item'" -- \
      env HOME="$NBD/home" XDG_CONFIG_HOME="$NBD/home/.config" XDG_DATA_HOME="$NBD/home/.local/share" \
      newsboat -u "$CORPUS/urls" -c "$NBD/cache.db" -C "$NBD/config" -x reload || true
  fi
done
python3 "$KIT/summarize.py" "$OUT"
