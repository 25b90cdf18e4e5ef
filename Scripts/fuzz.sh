#!/usr/bin/env bash
# Builds and runs a libFuzzer target against the FeedParsing sources.
#
#   Scripts/fuzz.sh parser SECONDS    # FeedParser, fed in chunks
#   Scripts/fuzz.sh dates  SECONDS    # FeedDate.parse and EpisodeDuration.parse
#
# The harness (Scripts/Fuzz/) is compiled together with Sources/FeedParsing as one module, with
# -sanitize=fuzzer,address. The corpus and crash artifacts live in .build/fuzz/<target>/ (never committed); the corpus
# is seeded from Tests/FeedParsingTests/Fixtures, Tests/ReliabilityTests/Fixtures and ../shared/corpus/real.
# Prints executions/s, total executions, corpus size and crashes at the end.
set -euo pipefail

target="${1:?usage: Scripts/fuzz.sh parser|dates SECONDS}"
seconds="${2:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

case "$target" in
    parser) harness="Scripts/Fuzz/ParserFuzzer.swift" ;;
    dates) harness="Scripts/Fuzz/DateFuzzer.swift" ;;
    *) echo "unknown target: $target (parser|dates)" >&2; exit 64 ;;
esac

work=".build/fuzz/$target"
mkdir -p "$work/corpus" "$work/artifacts"
binary="$work/fuzz-$target"
swiftc="${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}"

echo "== building $binary"
mapfile -t sources < <(find Sources/FeedParsing -name '*.swift' | sort)
# shellcheck disable=SC2046
"$swiftc" -sanitize=fuzzer,address -parse-as-library -O -g \
    -swift-version 6 \
    -enable-upcoming-feature ExistentialAny \
    -enable-upcoming-feature InternalImportsByDefault \
    -enable-upcoming-feature MemberImportVisibility \
    -module-name FeedParsing \
    -I Sources/CLibXML2 $(pkg-config --cflags libxml-2.0 | sed 's/-I/-Xcc -I/g') -lxml2 \
    "${sources[@]}" "$harness" -o "$binary"

echo "== seeding $work/corpus"
seed() { # copy a file into the corpus under its content hash (idempotent)
    local file="$1"
    [ -f "$file" ] || return 0
    cp "$file" "$work/corpus/seed-$(sha1sum "$file" | cut -c1-16)"
}
if [ "$target" = parser ]; then
    for dir in Tests/FeedParsingTests/Fixtures Tests/ReliabilityTests/Fixtures ../shared/corpus/real; do
        [ -d "$dir" ] || continue
        while IFS= read -r -d '' file; do seed "$file"; done < <(find "$dir" -type f ! -name '*.tsv' ! -name '*.md' -size -2M -print0)
    done
else
    i=0
    for text in "Mon, 06 May 2024 10:00:00 +0000" "Tue, 7 May 2024 9:05 GMT" "2024-05-06T10:00:00Z" \
        "2024-05-06T10:00:00.123+02:00" "2024-05-06" "06 May 2024 10:00:00 EDT" "Mon, 06 May 24 10:00:00 PST" \
        "Sunday, 06-May-24 10:00:00 GMT" "1:02:03" "62:03" "3723" "3723.5" "PT1H2M3S" "01:02:03.500" "" "  90 "; do
        printf '%s' "$text" > "$work/corpus/seed-$i"
        i=$((i + 1))
    done
fi
echo "   $(ls "$work/corpus" | wc -l) files"

echo "== fuzzing $target for ${seconds}s"
log="$work/last-run.log"
set +e
"$binary" "$work/corpus" -artifact_prefix="$work/artifacts/" -max_total_time="$seconds" -rss_limit_mb=2048 \
    -timeout=10 -max_len=65536 -print_final_stats=1 2>&1 | tee "$log" | grep -E '^#[0-9]+.*(pulse|NEW|REDUCE|DONE)' | awk 'NR % 50 == 1'
status=${PIPESTATUS[0]}
set -e

runs="$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || true)"
if [ -z "$runs" ]; then runs="$(grep -Eo '^#[0-9]+' "$log" | tail -1 | tr -d '#')"; fi
rate="$(grep -Eo 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || true)"
crashes="$(find "$work/artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)"
echo "== $target: ${seconds}s, executions: ${runs:-?}, executions/s: ${rate:-?}, corpus: $(ls "$work/corpus" | wc -l) files, findings: $crashes (exit $status)"
if [ "$crashes" -gt 0 ]; then
    find "$work/artifacts" -type f | sed 's/^/   /'
    grep -E 'ERROR|Fatal error|precondition|SUMMARY' "$log" | head -10 | sed 's/^/   /'
fi
exit "$status"
