#!/usr/bin/env bash
# Big-feed benchmark (not a test; issue #36 item 5): one generated RSS feed of about 70 MB with 20,000 items, served
# over HTTP on 127.0.0.1 (Python's http.server: no validators, no gzip, so every fetch gets the whole body), and
# `podfresh refresh` measured with /usr/bin/time -v: cold (every episode new), warm (the same body again: read short)
# and full (`--force --full`: read and parsed to its end, merged, nothing new). Prints wall, CPU and peak RSS of each.
#
#   Scripts/bench-big-feed.sh [MB] [ITEMS]     defaults 70 and 20000
#
# Environment: PODFRESH_BIN (default: a release build of this tree), PORT (default 18091), BENCH_WORK (default
# ${TMPDIR:-/tmp}/podfresh-big-feed; the feed is generated there once).
set -euo pipefail
cd "$(dirname "$0")/.."
MB="${1:-70}"
ITEMS="${2:-20000}"
PORT="${PORT:-18091}"
WORK="${BENCH_WORK:-${TMPDIR:-/tmp}/podfresh-big-feed}"
if [ -n "${PODFRESH_BIN:-}" ]; then
  BIN="$(realpath "$PODFRESH_BIN")"
else
  swift build -c release --product podfresh 2>&1 | tail -1
  BIN="$(swift build -c release --show-bin-path)/podfresh"
fi
[ -x /usr/bin/time ] || { echo "bench-big-feed: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
mkdir -p "$WORK/www"
FEED="$WORK/www/big-$MB-$ITEMS.xml"
if [ ! -s "$FEED" ]; then
  python3 - "$FEED" "$MB" "$ITEMS" <<'PY'
import sys, random, email.utils, datetime as dt
path, mb, items = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r = random.Random(36)
words = "podcast episode interview guest story history science music culture market climate health city river".split()
notes_bytes = max(200, (mb * 1_000_000) // items - 400)
start = dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc)
with open(path, "w", encoding="utf-8") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" '
            'xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>\n<title>Big feed</title>\n'
            '<link>https://big.example/</link><description>One feed of many episodes.</description>\n')
    for i in range(items):
        n = items - i
        when = email.utils.format_datetime(start - dt.timedelta(hours=6 * i))
        notes = []
        size = 0
        while size < notes_bytes:
            w = r.choice(words)
            notes.append(w)
            size += len(w) + 1
        f.write(f"<item><title>Episode {n}: {' '.join(r.choice(words) for _ in range(6))}</title>"
                f"<guid isPermaLink=\"false\">big-{n}</guid><pubDate>{when}</pubDate>"
                f"<link>https://big.example/episodes/{n}</link>"
                f"<enclosure url=\"https://cdn.big.example/{n}.mp3\" length=\"{r.randint(10**6, 10**8)}\" "
                f"type=\"audio/mpeg\"/><itunes:duration>{r.randint(600, 7200)}</itunes:duration>"
                f"<description><![CDATA[<p>{' '.join(notes)}</p>]]></description></item>\n")
    f.write("</channel></rss>\n")
PY
fi
echo "feed: $FEED ($(du -m "$FEED" | cut -f1) MB, $ITEMS items)"
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$WORK/www" >/dev/null 2>&1 &
SERVER=$!
DB="$WORK/podfresh-$$.sqlite"
trap 'kill $SERVER 2>/dev/null || true; rm -f "$DB" "$DB"-* "$DB.lock"' EXIT
for _ in $(seq 50); do curl -sfI "http://127.0.0.1:$PORT/$(basename "$FEED")" >/dev/null && break; sleep 0.1; done
# Subscribed through OPML: `add` would fetch it once already.
printf '<?xml version="1.0"?><opml version="2.0"><body><outline type="rss" text="big" xmlUrl="%s"/></body></opml>\n' \
  "http://127.0.0.1:$PORT/$(basename "$FEED")" > "$WORK/big.opml"
"$BIN" import --database "$DB" "$WORK/big.opml" >/dev/null
run() {
  local label="$1"; shift
  /usr/bin/time -v -o "$WORK/time.txt" "$BIN" refresh --database "$DB" "$@" >/dev/null 2>&1 || true
  awk -v label="$label" -v episodes="$(sqlite3 "$DB" 'select count(*) from episode' 2>/dev/null || echo '?')" '
    /Elapsed \(wall clock\)/ { n = split($NF, p, ":"); wall = 0; for (i = 1; i <= n; i++) wall = wall * 60 + p[i] }
    /User time/ { user = $NF } /System time/ { sys = $NF } /Maximum resident/ { rss = $NF / 1024 }
    END { printf "| %s | %.2f s | %.2f s | %.1f MB | %s |\n", label, wall, user + sys, rss, episodes }' "$WORK/time.txt"
}
echo "| run | wall | CPU | peak RSS | episodes stored |"
echo "| --- | ---: | ---: | ---: | ---: |"
run "cold (every episode new)" --all --max-feed-size 75
run "warm (the same body again: read short)" --all
run "full (--force --full: parsed to its end, merged)" --force --full
