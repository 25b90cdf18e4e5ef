#!/usr/bin/env bash
# Records what a podfresh binary prints, so a refactor can show its output is byte-identical (not a test: run it
# with the binary before and after, then `diff -r` the two folders; the diff must be empty).
#
#   Scripts/output-identity.sh BINARY OUTDIR
#
# What it records, over every feed of ../shared/corpus/real and every test fixture:
# - `parse --json FILE` and `parse FILE` (stdout, stderr and exit status) for each file;
# - `add`, then `refresh` in JSON Lines, plain and quiet modes, then `list`, `status`, `episodes` (each also
#   `--json`), with the corpus served over HTTP on 127.0.0.1 and the fixtures read from disk.
# The order feeds are checked in is shuffled on purpose (hosts spread out), so refresh outputs are compared as sorted
# lines with the running progress counts masked. Times that depend on the clock (RFC 3339 timestamps, durations,
# "ago" and "in …" columns) are replaced by placeholders; nothing else is touched.
set -euo pipefail
BIN="$(realpath "$1")"
OUT="$2"
cd "$(dirname "$0")/.."
ROOT="$PWD"
CORPUS="${CORPUS:-$ROOT/../shared/corpus/real}"
PORT="${IDENTITY_PORT:-18931}"
rm -rf "$OUT"
mkdir -p "$OUT/parse" "$OUT/run"
WORK="$(mktemp -d)"
trap 'kill "$SERVER" 2>/dev/null || true; rm -rf "$WORK"' EXIT

normalise() {
  sed -E \
    -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})/<time>/g' \
    -e 's/"duration_seconds":[0-9.e+-]+/"duration_seconds":<d>/g' \
    -e 's/ in [0-9]+\.[0-9] s$/ in <d> s/' \
    -e 's/ in [0-9]+(\.[0-9])?s$/ in <d> s/' \
    -e 's/\(in [0-9hmsd ]+\)/(in <d>)/g' \
    -e 's/[0-9]+(s|m|h|d) ago/<ago>/g' \
    -e 's/\bin [0-9]+[smhd]( [0-9]+[smhd])*/in <d>/g'
}

unordered() { # sorted lines, progress counts masked
  sed -E -e 's/"event":"progress".*/"event":"progress",<counts>}/' -e 's/^\[[0-9]+\/[0-9]+\].*//' | LC_ALL=C sort
}

record() { # NAME COMMAND…: stdout, stderr and exit status of one command
  local name="$1"; shift
  local rc=0
  "$@" >"$WORK/stdout" 2>"$WORK/stderr" || rc=$?
  normalise <"$WORK/stdout" >"$OUT/$name.out"
  normalise <"$WORK/stderr" >"$OUT/$name.err"
  echo "$rc" >"$OUT/$name.rc"
}

# 1. parse, file by file.
files=()
while IFS= read -r -d '' f; do files+=("$f"); done < <(
  find "$CORPUS" "$ROOT/Tests/FeedParsingTests/Fixtures" "$ROOT/Tests/ReliabilityTests/Fixtures" -type f \
    ! -name MANIFEST.tsv -print0 | sort -z)
for f in "${files[@]}"; do
  key="$(echo "${f#"$ROOT"/}" | tr '/' '_')"
  record "parse/$key.json" "$BIN" parse --json "$f"
  record "parse/$key.human" "$BIN" parse "$f"
done

# 2. The corpus over HTTP, the fixtures from disk, in one database per output mode.
(cd "$CORPUS" && exec python3 -m http.server "$PORT" --bind 127.0.0.1 >/dev/null 2>&1) &
SERVER=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.1; done
urls=()
for f in "$CORPUS"/*; do
  name="$(basename "$f")"
  case "$name" in MANIFEST.tsv|*.opml) continue ;; esac
  urls+=("http://127.0.0.1:$PORT/$name")
done
while IFS= read -r -d '' f; do urls+=("$f"); done < <(find "$ROOT/Tests/FeedParsingTests/Fixtures" -maxdepth 1 -type f -print0 | sort -z)

for mode in json plain quiet; do
  DB="$WORK/$mode.sqlite"
  record "run/$mode-add" "$BIN" add --database "$DB" --no-fetch "${urls[@]}"
  case "$mode" in
    json) flags=(--json) ;;
    plain) flags=() ;;
    quiet) flags=(--quiet) ;;
  esac
  record "run/$mode-refresh" "$BIN" refresh --database "$DB" --jobs 1 --per-host 1 "${flags[@]}"
  record "run/$mode-refresh-again" "$BIN" refresh --database "$DB" --jobs 1 --per-host 1 --all "${flags[@]}"
  for f in "$OUT/run/$mode-refresh"*.{out,err}; do unordered <"$f" >"$f.tmp" && mv "$f.tmp" "$f"; done
done
DB="$WORK/json.sqlite"
record run/list "$BIN" list --database "$DB"
record run/list-json "$BIN" list --database "$DB" --json
record run/status "$BIN" status --database "$DB"
record run/status-json "$BIN" status --database "$DB" --json
record run/episodes "$BIN" episodes --database "$DB" --limit 100000
record run/episodes-json "$BIN" episodes --database "$DB" --json --limit 100000
# Episodes published at the same moment come in the order they were stored, which follows the check order.
for f in "$OUT"/run/episodes*.out; do LC_ALL=C sort <"$f" >"$f.tmp" && mv "$f.tmp" "$f"; done
record run/export "$BIN" export --database "$DB"
echo "recorded $(find "$OUT" -type f | wc -l) files in $OUT"
