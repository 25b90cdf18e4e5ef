#!/usr/bin/env bash
# Parse benchmark (not a test): podfresh's FeedParser against libxml2's own SAX loop with empty callbacks (the floor),
# single core, release build, over the same generated corpus in the same run. Reports MB/s, ms per feed and the ratio,
# by wall time (the best repetition) and by CPU time (user + system of each process over all its repetitions). On a
# machine other jobs share, the wall time counts the waits for the core too, and the longer run waits more: the CPU
# ratio is the steadier one. CALLGRIND=N adds the steadiest, instruction counts over the first N feeds (valgrind).
#
#   Scripts/bench-parse.sh [N_FEEDS]     (default 200; ../shared/bench/gen_corpus.py makes the corpus)
#   REPS=3 CORE=1 ROUNDS=3 CALLGRIND=40
#   OTHERS="base=/path/to/podfresh-parse-bench …"   other builds' benches, run in the same rounds, side by side
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-200}"
REPS="${REPS:-3}"
CORE="${CORE:-1}"
SHARED="${SHARED:-$PWD/../shared/bench}"
WORK="${BENCH_WORK:-${TMPDIR:-/tmp}/podfresh-parse-bench}"
mkdir -p "$WORK"
CORPUS="$WORK/c$N"
[ -d "$CORPUS/feeds" ] || python3 "$SHARED/gen_corpus.py" --feeds "$N" --out "$CORPUS" --seed 1 --port 18080 --no-gz >/dev/null
ls "$CORPUS"/feeds/*.xml > "$WORK/files-$N.txt"
gcc -O2 -o "$WORK/sax_floor" "$SHARED/sax_floor.c" $(pkg-config --cflags --libs libxml-2.0)
if [ -z "${BENCH:-}" ]; then
  swift build -c release --product podfresh-parse-bench 2>&1 | tail -1
  BENCH="$(swift build -c release --show-bin-path)/podfresh-parse-bench"
fi
ROUNDS="${ROUNDS:-3}"
# The builds compared: this tree's, then each of OTHERS (label=path).
LABELS=(podfresh)
BENCHES=("$BENCH")
for other in ${OTHERS:-}; do
  LABELS+=("${other%%=*}")
  BENCHES+=("${other#*=}")
done
echo "corpus: $N feeds, $(du -sh "$CORPUS/feeds" | cut -f1), cpu $CORE, $ROUNDS alternating rounds, best of $REPS each"
# Alternate the floor and every build so a noisy neighbour slows them alike; the best round of each is compared.
run() { local out; out=$(/usr/bin/time -f "cpu_s=%U+%S" taskset -c "$CORE" "$@" -r "$REPS" -l "$WORK/files-$N.txt" 2>&1); echo "${out//$'\n'/ }"; }
RESULTS=()
for round in $(seq "$ROUNDS"); do
  line=$(run "$WORK/sax_floor")
  echo "round $round floor: $line"
  RESULTS+=("floor|$line")
  for i in "${!BENCHES[@]}"; do
    line=$(run "${BENCHES[$i]}")
    echo "round $round ${LABELS[$i]}: $line"
    RESULTS+=("${LABELS[$i]}|$line")
  done
done
python3 - "${RESULTS[@]}" <<'PY'
import re, sys
def rate(line):
    m = re.search(r"MB(?:/s|ps)=([0-9.]+)", line)
    return float(m.group(1)) if m else None
def cpu(line):
    m = re.search(r"cpu_s=([0-9.]+)\+([0-9.]+)", line)
    return float(m.group(1)) + float(m.group(2)) if m else None
runs = {}
for entry in sys.argv[1:]:
    label, line = entry.split("|", 1)
    runs.setdefault(label, []).append(line)
floor = runs.pop("floor")
floor_rate = max(rate(l) for l in floor)
floor_cpu = min(cpu(l) for l in floor)
print(f"floor: best {floor_rate:.1f} MB/s, least CPU {floor_cpu:.2f} s")
for label, lines in runs.items():
    best = max(rate(l) for l in lines)
    least = min(cpu(l) for l in lines)
    wall = ", ".join(f"{rate(o) / rate(f):.0%}" for f, o in zip(floor, lines))
    cpus = ", ".join(f"{cpu(f) / cpu(o):.0%}" for f, o in zip(floor, lines))
    print(f"{label}: {best / floor_rate:.0%} of libxml2's empty-callback SAX floor by wall time (best {best:.1f} MB/s; per round {wall}), {floor_cpu / least:.0%} by CPU time (least {least:.2f} s; per round {cpus})")
PY
if [ -n "${CALLGRIND:-}" ]; then
  head -n "$CALLGRIND" "$WORK/files-$N.txt" > "$WORK/files-cg.txt"
  count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" -r 1 -l "$WORK/files-cg.txt" 2>&1 >/dev/null | sed -n 's/.*Collected : //p'; }
  FLOOR_IR=$(count "$WORK/sax_floor")
  echo "instructions over the first $CALLGRIND feeds: floor $FLOOR_IR"
  for i in "${!BENCHES[@]}"; do
    IR=$(count "${BENCHES[$i]}")
    python3 -c "import sys; f, o = int(sys.argv[1]), int(sys.argv[2]); print(f'{sys.argv[3]}: {o / 1e6:,.1f} M instructions, {f / o:.1%} of the floor\'s')" \
      "$FLOOR_IR" "$IR" "${LABELS[$i]}"
  done
fi
