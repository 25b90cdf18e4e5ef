#!/usr/bin/env bash
# When-to-look benchmark (not a test): replays feed files' publication histories through the scheduler the podfresh
# binary runs (its hidden `replay-schedule` command calls FeedScheduler.decide, the function every refresh calls) and
# prints, per policy, the requests per feed per day and how long episodes waited to be found.
#
#   Scripts/replay-schedule.sh [--window DAYS] [--json] FILE...
#   (with no FILE: every file of ../shared/corpus/real)
#   PODFRESH_BIN=path  a built binary to use (default: a release build of this tree)
#   Further options go to the command: --phases N (5), --seed S (1), --min-interval D, --max-interval D.
set -euo pipefail
cd "$(dirname "$0")/.."
ARGS=()
FILES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --window|--phases|--seed|--min-interval|--max-interval|--slot-lead|--slot-tail|--checks-per-day) ARGS+=("$1" "$2"); shift 2 ;;
    --json|--per-feed) ARGS+=("$1"); shift ;;
    *) FILES+=("$1"); shift ;;
  esac
done
if [ ${#FILES[@]} -eq 0 ]; then
  for f in ../shared/corpus/real/*.xml; do FILES+=("$f"); done
fi
if [ -z "${PODFRESH_BIN:-}" ]; then
  swift build -c release --product podfresh 2>&1 | tail -1 >&2
  PODFRESH_BIN="$(swift build -c release --show-bin-path)/podfresh"
fi
exec "$PODFRESH_BIN" replay-schedule "${ARGS[@]}" "${FILES[@]}"
