#!/usr/bin/env bash
# Internet benchmark (not a test): N generated feeds laid over hosts the way real podcasts are (one platform with 28%
# of the feeds, four with 6%, hosts of 6, self-hosted names; see Scripts/internet_bench.py), served by podfresh-netsim
# inside a network namespace (Scripts/netsim.sh): a resolver taking 40 ms a name, answers taking 0.1-2 s and a few
# 10-15 s, HTTPS on most hosts (HTTP/2 on the platforms), 5 MB/s a connection, names that do not exist, refuse or never
# answer. Measures podfresh, newsboat (reload-threads 1 and 5) and lemon24's reader, cold and warm, in one run, and
# prints one table with each row's wall time as a multiple of the floor the corpus sets.
#
#   Scripts/bench-internet.sh [N]        N feeds (default 1000), podfresh and its peers
#   Scripts/bench-internet.sh quick      100 feeds, podfresh only (NEWSBOAT=0 READER=0 unless set): about a minute
#
# Environment:
#   PODFRESH_BIN=path     the binary to measure (default: a release build of this tree)
#   PODFRESH_ARGS="..."   extra `podfresh refresh` arguments (default: none, so its own --jobs and --per-host)
#   NETSIM_BIN=path       the simulator (default: a release build of this tree)
#   WHOLE=0               skip podfresh's third run (`--force --full`: every feed sent whole again, unchanged, and
#                         read to its end: what a server without validators cost before issue #36)
#   STEADY=0              skip issue #36's runs after it, each against the warm run: unconditional (every feed sent
#                         again unchanged, validators never honoured), changed (5% of the feeds gained one new item at
#                         the top, sent whole; the episodes stored are counted) and mixed (45% of the hosts send no
#                         validators, a fifth of those a new lastBuildDate on every request)
#   NEWSBOAT=0 READER=0   skip a peer;  NB_THREADS="1 5" newsboat reload-threads to measure
#   REPS=1                repetitions (the table shows medians)
#   PER_HOST=n            the per-host limit the floor is computed with (default: podfresh's --per-host default)
#   BENCH_WORK=dir        work folder (default ${TMPDIR:-/tmp}/podfresh-internet-bench)
# Needs root (ip netns). Everything it makes is removed at the end, also on failure, except BENCH_WORK's corpus, venv
# and results.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
N="${1:-1000}"
if [ "$N" = quick ]; then
  N=100
  NEWSBOAT="${NEWSBOAT:-0}"
  READER="${READER:-0}"
fi
REPS="${REPS:-1}"
NEWSBOAT="${NEWSBOAT:-1}"
READER="${READER:-1}"
WHOLE="${WHOLE:-1}"
STEADY="${STEADY:-1}"
NB_THREADS="${NB_THREADS:-1 5}"
PODFRESH_ARGS="${PODFRESH_ARGS:-}"
export BENCH_WORK="${BENCH_WORK:-${TMPDIR:-/tmp}/podfresh-internet-bench}"
NS="bench-$$"
source "$ROOT/Scripts/bench-kit.sh"
bench_kit_copy

[ "$(id -u)" = 0 ] || { echo "bench-internet: needs root (ip netns)" >&2; exit 1; }
Scripts/netsim.sh check >/dev/null || { echo "bench-internet: ip netns does not work here: $(Scripts/netsim.sh check)" >&2; exit 1; }
need=()
for c in sqlite3:sqlite3 curl:curl openssl:openssl; do command -v "${c%%:*}" >/dev/null || need+=("${c#*:}"); done
[ "$NEWSBOAT" = 1 ] && ! command -v newsboat >/dev/null && need+=(newsboat)
[ "$READER" = 1 ] && ! python3 -c 'import venv, ensurepip' 2>/dev/null && need+=(python3-venv)
bench_install "${need[@]}"
PY="$KIT/.venv/bin/python"
if [ "$READER" = 1 ] && [ ! -x "$PY" ]; then
  python3 -m venv "$KIT/.venv"
  "$KIT/.venv/bin/pip" install -q -r "$KIT/requirements.lock.txt"
fi

# ---- binaries, corpus, layout --------------------------------------------------------------------------------------
bench_binary
if [ -z "${NETSIM_BIN:-}" ]; then
  swift build -c release --product podfresh-netsim 2>&1 | tail -1
  NETSIM_BIN="$(swift build -c release --show-bin-path)/podfresh-netsim"
fi
export NETSIM_BIN
# --help wraps: the default may be on a line of its own under the option.
PER_HOST="${PER_HOST:-$("$BIN" refresh --help | grep -A3 -e '--per-host <' | grep -o 'default: [0-9]*' | head -1 | grep -o '[0-9]*')}"
PER_HOST="${PER_HOST:-2}"
CORPUS="$KIT/corpus/c$N"
[ -d "$CORPUS/feeds" ] || python3 "$KIT/gen_corpus.py" --feeds "$N" --out "$CORPUS" --seed 1 --port 18080 >/dev/null
LAY="$KIT/internet/c$N"
python3 Scripts/internet_bench.py layout --corpus "$CORPUS" --out "$LAY" --per-host "$PER_HOST"

STAMP="$(date +%Y%m%d-%H%M%S)"
OUT="$KIT/results-internet-c$N-$STAMP.jsonl"
LOG="$KIT/results-internet-c$N-$STAMP.log"
RUNS="$KIT/run-$NS"
export NETSIM_STATE="$RUNS/netsim"  # the namespace's CA, certificate, simulator log and pid; removed with RUNS
cleanup() { Scripts/netsim.sh down "$NS" >/dev/null 2>&1 || true; rm -rf "$RUNS"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$RUNS"
Scripts/netsim.sh up "$NS" "$LAY/layout.json" "$CORPUS"
M=(python3 Scripts/internet_bench.py measure --out "$OUT" --plan "$LAY/plan.json" --ns "$NS" --log "$LOG")
echo "podfresh: $BIN $PODFRESH_ARGS; results: $OUT; output of the tools: $LOG"

for rep in $(seq "$REPS"); do
  DB="$RUNS/podfresh.sqlite"
  rm -f "$DB" "$DB"-* "$DB.lock"
  "$BIN" import --database "$DB" "$LAY/feeds.opml" >/dev/null
  CNT="sqlite3 $DB 'select count(*) from episode'"
  # shellcheck disable=SC2086
  "${M[@]}" --tool "podfresh" --case "1 cold" --rep "$rep" --count-cmd "$CNT" -- \
    "$BIN" refresh --database "$DB" --all $PODFRESH_ARGS || true
  # shellcheck disable=SC2086
  "${M[@]}" --tool "podfresh" --case "2 warm" --rep "$rep" --count-cmd "$CNT" -- \
    "$BIN" refresh --database "$DB" --all $PODFRESH_ARGS || true
  if [ "$WHOLE" = 1 ]; then
    # Every feed sent whole again and unchanged: a host without validators (--force asks unconditionally), every
    # body read to its end and parsed (--full), as before issue #36.
    # shellcheck disable=SC2086
    "${M[@]}" --tool "podfresh" --case "3 whole, unchanged" --rep "$rep" --count-cmd "$CNT" -- \
      "$BIN" refresh --database "$DB" --force --full $PODFRESH_ARGS || true
  fi
  if [ "$STEADY" = 1 ]; then
    # Issue #36's steady state, each against the warm run: the simulator's mode says how the hosts answer.
    for step in "4 unconditional:unconditional" "5 changed:changed" "6 mixed:mixed"; do
      Scripts/netsim.sh stats "$NS" mode "${step#*:}" >/dev/null
      # shellcheck disable=SC2086
      "${M[@]}" --tool "podfresh" --case "${step%%:*}" --rep "$rep" --count-cmd "$CNT" -- \
        "$BIN" refresh --database "$DB" --all $PODFRESH_ARGS || true
    done
    Scripts/netsim.sh stats "$NS" mode normal >/dev/null
  fi

  if [ "$NEWSBOAT" = 1 ]; then
    for th in $NB_THREADS; do
      NBD="$RUNS/newsboat"; rm -rf "$NBD"; mkdir -p "$NBD/home"; echo "reload-threads $th" > "$NBD/config"
      NB=(env HOME="$NBD/home" XDG_CONFIG_HOME="$NBD/home/.config" XDG_DATA_HOME="$NBD/home/.local/share"
          newsboat -u "$LAY/urls" -c "$NBD/cache.db" -C "$NBD/config" -x reload)
      CNT="sqlite3 $NBD/cache.db 'select count(*) from rss_item'"
      # newsboat sends no conditional request on its second run (see ../shared/bench/README.md); its third is warm.
      "${M[@]}" --tool "newsboat threads=$th" --case "1 cold" --rep "$rep" --count-cmd "$CNT" -- "${NB[@]}" || true
      "${M[@]}" --tool "newsboat threads=$th" --case "2 second" --rep "$rep" --count-cmd "$CNT" -- "${NB[@]}" || true
      "${M[@]}" --tool "newsboat threads=$th" --case "3 warm" --rep "$rep" --count-cmd "$CNT" -- "${NB[@]}" || true
      rm -rf "$NBD"
    done
  fi

  if [ "$READER" = 1 ]; then
    RDB="$RUNS/reader.sqlite"; rm -f "$RDB" "$RDB"-*
    "${M[@]}" --tool "reader workers=5" --case "1 cold" --rep "$rep" -- \
      "$PY" "$ROOT/Scripts/internet_bench.py" run-with-test-ca "$KIT/reader_refresh.py" "$RDB" "$LAY/urls" 5 || true
    "${M[@]}" --tool "reader workers=5" --case "2 warm" --rep "$rep" -- \
      "$PY" "$ROOT/Scripts/internet_bench.py" run-with-test-ca "$KIT/reader_refresh.py" "$RDB" "$LAY/urls" 5 || true
    rm -f "$RDB" "$RDB"-*
  fi
done

echo
python3 Scripts/internet_bench.py table "$OUT" "$LAY/plan.json" | tee "${OUT%.jsonl}.md"
