#!/usr/bin/env bash
# Download benchmark (not a test): media files of 1 to 200 MB (an ID3v2 tag, then random bytes: what podfresh's
# first-bytes check sees in a real MP3, so every download goes through it) and one RSS feed listing them as
# enclosures, served by nginx on 127.0.0.1 (../shared/bench: sendfile, real ETag and Range). In the same run, for each
# concurrency J, `podfresh download` fetches every file with --jobs J --per-host J, and curl fetches the same files in
# the same order, one URL per curl process, J at a time (xargs -P J). Each run is timed under /usr/bin/time -v
# (../shared/bench/measure.py); every downloaded file's size and SHA-256 are checked against the originals, and a run
# that leaves a wrong, missing or partial file fails the benchmark.
#
# Targets (the issue): podfresh's wall within 1.2x of curl's at the same concurrency; its peak RSS under 100 MB
# whatever the file size. podfresh is one process; curl's figure is the largest single process of its run (rusage
# of the process tree: xargs and each curl), so with J > 1 the curl run holds up to J times that at once.
#
#   Scripts/bench-download.sh [quick]   quick: 1, 5 and 20 MB files (default: 1, 5, 20, 50, 100 and 200 MB)
#   SIZES="1 5 20" (MB of 10^6 bytes, newest episode first)  JOBS="1 3"  REPS=1  BENCH_PORT=18080
#   CURL_SYNC=1 (0: leave out the reference row "curl+fsync": curl, then every file fsynced)
#   PODFRESH_BIN=path (default: a release build of this tree)
# J=3 is podfresh's default --jobs. Everything (media, databases, downloads, HOME of the runs) stays under BENCH_WORK.
# Exit status: 0 with a verdict line (targets met or missed), 1 when a run fails or leaves a file that differs.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
case "${1:-full}" in
  quick) DEFAULT_SIZES="1 5 20" ;;
  full) DEFAULT_SIZES="1 5 20 50 100 200" ;;
  *) echo "usage: $0 [quick]" >&2; exit 64 ;;
esac
SIZES="${SIZES:-$DEFAULT_SIZES}"
JOBS_LIST="${JOBS:-1 3}"
REPS="${REPS:-1}"
CURL_SYNC="${CURL_SYNC:-1}"
export BENCH_WORK="${BENCH_WORK:-${TMPDIR:-/tmp}/podfresh-download-bench}"
source "$ROOT/Scripts/bench-kit.sh"
bench_kit_copy

need=()
for c in nginx:nginx curl:curl sha256sum:coreutils; do command -v "${c%%:*}" >/dev/null || need+=("${c#*:}"); done
bench_install "${need[@]}"

# The media and the feed, generated once per list of sizes (random bytes: nothing compresses or repeats).
MEDIA_ROOT="$KIT/media-root"
FEED_URL="http://127.0.0.1:$BENCH_PORT/feeds/media.xml"
EXPECTED="$MEDIA_ROOT/expected.txt"   # "size sha256" per file, sorted
if [ "$(cat "$MEDIA_ROOT/sizes" 2>/dev/null)" != "$SIZES $BENCH_PORT id3" ]; then
  rm -rf "$MEDIA_ROOT"
  mkdir -p "$MEDIA_ROOT/feeds" "$MEDIA_ROOT/media"
  i=0
  for mb in $SIZES; do
    i=$((i + 1))
    # "ID3", version 3.0, no flags, a tag size of 0; then random bytes up to the size.
    { printf 'ID3\003\000\000\000\000\000\000'; head -c $((mb * 1000000 - 10)) /dev/urandom; } \
      > "$MEDIA_ROOT/media/ep$(printf %02d "$i")-${mb}MB.mp3"
  done
  # The feed lists the files newest first, in the order of SIZES (podfresh downloads the newest first).
  python3 - "$MEDIA_ROOT" "$BENCH_PORT" $SIZES > "$MEDIA_ROOT/feeds/media.xml" <<'EOF'
import email.utils, os, sys
root, port, sizes = sys.argv[1], sys.argv[2], sys.argv[3:]
print('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>Download benchmark</title>'
      '<link>http://127.0.0.1/</link><description>Media files of random bytes</description>')
for i, mb in enumerate(sizes, 1):
    name = f"ep{i:02d}-{mb}MB.mp3"
    size = os.path.getsize(os.path.join(root, "media", name))
    date = email.utils.formatdate(1_700_000_000 - i * 86400, usegmt=True)
    print(f'<item><title>Episode {i} ({mb} MB)</title><guid isPermaLink="false">bench-{i}</guid>'
          f'<pubDate>{date}</pubDate><enclosure url="http://127.0.0.1:{port}/media/{name}" length="{size}" '
          f'type="audio/mpeg"/></item>')
print('</channel></rss>')
EOF
  (cd "$MEDIA_ROOT/media" && for f in *.mp3; do echo "$(stat -c %s "$f") $(sha256sum < "$f" | cut -d' ' -f1)"; done) \
    | sort > "$EXPECTED"
  echo "$SIZES $BENCH_PORT id3" > "$MEDIA_ROOT/sizes"
fi
COUNT=$(wc -l < "$EXPECTED")
TOTAL_MB=$(awk '{s += $1} END {printf "%.0f", s / 1e6}' "$EXPECTED")
# The URLs in feed order (newest first), for curl.
URLS="$MEDIA_ROOT/urls"
grep -o 'url="[^"]*"' "$MEDIA_ROOT/feeds/media.xml" | cut -d'"' -f2 > "$URLS"

bench_serve_root "$MEDIA_ROOT"
trap '"$KIT/stop_nginx.sh" >/dev/null 2>&1 || true' EXIT
bench_binary
OUT="$KIT/results-download-$(date +%Y%m%d-%H%M%S).jsonl"
M=(python3 "$KIT/measure.py" --out "$OUT")
echo "media: $COUNT files, $TOTAL_MB MB ($SIZES MB) under $MEDIA_ROOT; results: $OUT"

# The runs' own HOME and XDG folders, so that nothing lands in the user's.
RUNS="$KIT/runs"
ISOLATED=(env -u PODFRESH_DATABASE HOME="$RUNS/home" XDG_CONFIG_HOME="$RUNS/home/.config" XDG_DATA_HOME="$RUNS/home/.local/share"
  XDG_CACHE_HOME="$RUNS/home/.cache" PODFRESH_DOWNLOADS="$RUNS/unused-default-dir")
DL="$RUNS/downloads"

# Fails the benchmark unless DIR holds exactly the original files (sizes and checksums) and no .part.
verify() {
  local dir="$1" what="$2" got
  got=$(cd "$dir" && find . -type f -print0 | sort -z |
    while IFS= read -r -d '' f; do echo "$(stat -c %s "$f") $(sha256sum < "$f" | cut -d' ' -f1)"; done | sort)
  if [ "$got" != "$(cat "$EXPECTED")" ]; then
    echo "FAIL: $what left files that differ from the originals (size sha256; < expected, > downloaded):" >&2
    diff <(cat "$EXPECTED") <(echo "$got") >&2 || true
    (cd "$dir" && find . -type f -exec ls -l {} +) >&2
    exit 1
  fi
  echo "  $what: $COUNT files verified (sizes and SHA-256)"
}

# Fails the benchmark when the last measured run exited non-zero.
check_exit() {
  local rc
  rc=$(tail -1 "$OUT" | python3 -c 'import json, sys; print(json.load(sys.stdin)["rc"])')
  [ "$rc" = 0 ] || { echo "FAIL: $1 exited $rc" >&2; exit 1; }
}

# A clean start for each timed run: an empty download folder and no dirty pages of the last run left to write back.
fresh_dir() {
  rm -rf "$DL"
  mkdir -p "$DL" "$RUNS/home"
  sync
}

for rep in $(seq "$REPS"); do
  for j in $JOBS_LIST; do
    # podfresh: a new database subscribed to the feed (untimed), then the download (timed).
    DB="$RUNS/podfresh.sqlite"
    rm -f "$DB" "$DB"-* "$DB.lock"
    mkdir -p "$RUNS/home"
    "${ISOLATED[@]}" "$BIN" add --database "$DB" "$FEED_URL" >/dev/null
    "${ISOLATED[@]}" "$BIN" set --database "$DB" 1 --download on --keep all >/dev/null
    fresh_dir
    "${M[@]}" --tool podfresh --case "jobs=$j" --rep "$rep" -- "${ISOLATED[@]}" "$BIN" download --database "$DB" 1 \
      --latest "$COUNT" --jobs "$j" --per-host "$j" --dir "$DL" --quiet || true
    check_exit "podfresh download (jobs=$j)"
    verify "$DL" "podfresh jobs=$j"

    # curl: the same URLs in the same order, one curl process per file, J at a time.
    fresh_dir
    "${M[@]}" --tool curl --case "jobs=$j" --rep "$rep" -- bash -c \
      'cd "$1" && xargs -P "$2" -n 1 curl -sS --fail -O < "$3"' curl "$DL" "$j" "$URLS" || true
    check_exit "curl (jobs=$j)"
    verify "$DL" "curl jobs=$j"

    # A reference, not the target: curl as above, then each file fsynced (`sync FILE…`), the durability podfresh
    # pays before it renames a .part (curl leaves the writing back to the kernel, after the run is timed).
    if [ "$CURL_SYNC" = 1 ]; then
      fresh_dir
      "${M[@]}" --tool curl+fsync --case "jobs=$j" --rep "$rep" -- bash -c \
        'cd "$1" && xargs -P "$2" -n 1 curl -sS --fail -O < "$3" && sync -- *' curl "$DL" "$j" "$URLS" || true
      check_exit "curl+fsync (jobs=$j)"
      verify "$DL" "curl+fsync jobs=$j"
    fi
  done
done
rm -rf "$DL"

# The table (median over reps), and the verdict against the targets.
python3 - "$OUT" "$COUNT" "$TOTAL_MB" <<'EOF'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
count, total_mb = int(sys.argv[2]), float(sys.argv[3])
med = lambda xs: statistics.median(xs)
by = {}
for r in rows:
    by.setdefault((r["case"], r["tool"]), []).append(r)
cases = sorted({case for case, _ in by}, key=lambda c: int(c.split("=")[1]))
print(f"\n| case | files | total MB | wall s | ratio to curl | ratio to curl+fsync | CPU s | peak RSS MB | MB/s | "
      "other CPU s |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
verdicts = []
for case in cases:
    curl_wall = med([r["wall_s"] for r in by[(case, "curl")]])
    synced = by.get((case, "curl+fsync"))
    synced_wall = med([r["wall_s"] for r in synced]) if synced else None
    for tool in ("podfresh", "curl", "curl+fsync"):
        rs = by.get((case, tool))
        if not rs:
            continue
        wall = med([r["wall_s"] for r in rs])
        rss = max(r["maxrss_MB"] for r in rs)
        to_synced = f"{wall / synced_wall:.2f}" if synced_wall else "-"
        print(f"| {tool} {case} | {count} | {total_mb:.0f} | {wall:.2f} | {wall / curl_wall:.2f} | {to_synced} | "
              f"{med([r['cpu_s'] for r in rs]):.2f} | {rss:.1f} | {total_mb / wall:.0f} | "
              f"{med([r['other_cpu_s'] for r in rs]):.1f} |")
        if tool == "podfresh":
            verdicts.append((case, wall / curl_wall, rss))
print("\npeak RSS: podfresh is one process; curl's is the largest single process (xargs or one curl) of its run.")
print("curl+fsync: a reference (curl, then each file fsynced, as podfresh does before its rename), not the target.")
print(f"wall: median of {max(len(rs) for rs in by.values())} run(s); peak RSS: the largest of them.")
print("other CPU s: CPU time the rest of the machine used during the run (noise).")
ok = all(ratio <= 1.2 and rss < 100 for _, ratio, rss in verdicts)
detail = "; ".join(f"{case}: wall {ratio:.2f}x curl ({'ok' if ratio <= 1.2 else 'MISSED'}), "
                   f"peak RSS {rss:.0f} MB ({'ok' if rss < 100 else 'MISSED'})" for case, ratio, rss in verdicts)
print(f"\nverdict: {'targets met' if ok else 'target missed'} (wall at most 1.2x curl, peak RSS under 100 MB): {detail}")
EOF
