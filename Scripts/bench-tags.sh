#!/usr/bin/env bash
# Tagging benchmark (not a test): MediaTagger writing an episode's tags (with a 64 kB cover) into a 100 MB MP3 and a
# 100 MB M4A, as a download does after verifying the file, beside `cp` of the same file (the floor: every byte is
# copied once either way) in the same run. Reports seconds per round and peak memory (/usr/bin/time's max RSS).
#
#   Scripts/bench-tags.sh [MB]     (default 100)   CONFIG=release|debug ROUNDS=3
set -euo pipefail
cd "$(dirname "$0")/.."
MB="${1:-100}"
CONFIG="${CONFIG:-release}"
ROUNDS="${ROUNDS:-3}"
WORK="${BENCH_WORK:-${TMPDIR:-/tmp}/podfresh-tag-bench}"
MEDIA=Tests/EpisodeDownloadsTests/Fixtures/Media
mkdir -p "$WORK"
swift build -c "$CONFIG" --product podfresh-tag-bench 2>&1 | tail -1
BENCH="$(swift build -c "$CONFIG" --show-bin-path)/podfresh-tag-bench"
# A 100 MB MP3: the fixture's ID3v2.3 tag, its MPEG frames repeated, its ID3v1 tag; a 100 MB M4A with moov first:
# the fixture's boxes with mdat grown (its chunk offsets still all point before the new bytes, which no player reads
# here: the benchmark measures the rewrite, not playback).
python3 - "$MEDIA" "$WORK" "$MB" <<'PY'
import struct, sys
media, work, mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
target = mb * 1_000_000
data = open(f"{media}/tone.mp3", "rb").read()
size = 0
for b in data[6:10]:
    size = (size << 7) | b
head, frames, v1 = data[:10 + size], data[10 + size:-128], data[-128:]
with open(f"{work}/big.mp3", "wb") as out:
    out.write(head)
    written = len(head)
    while written < target:
        out.write(frames)
        written += len(frames)
    out.write(v1)
data = open(f"{media}/tone-moov-first.m4a", "rb").read()
boxes, i = [], 0
while i < len(data):
    s, k = struct.unpack(">I4s", data[i:i + 8])
    boxes.append((k, data[i:i + s]))
    i += s
with open(f"{work}/big.m4a", "wb") as out:
    for kind, box in boxes:
        if kind == b"mdat":
            payload = box[8:]
            reps = target // len(payload) + 1
            out.write(struct.pack(">I4s", 8 + len(payload) * reps, b"mdat"))
            for _ in range(reps):
                out.write(payload)
        else:
            out.write(box)
PY
# A 64 kB cover, as a feed's artwork often is.
python3 -c "import sys; sys.stdout.buffer.write(open('$MEDIA/cover.jpg','rb').read()[:-2] + bytes(64000) + b'\xff\xd9')" > "$WORK/cover.jpg"
for kind in mp3 m4a; do
  FILE="$WORK/big.$kind"
  echo "== $kind: $(du -h "$FILE" | cut -f1), $CONFIG build, $ROUNDS rounds"
  sync
  /usr/bin/time -f "podfresh-tag-bench peak RSS: %M kB, wall %e s" "$BENCH" "$FILE" "$WORK/cover.jpg" "$ROUNDS"
  for round in $(seq "$ROUNDS"); do
    /usr/bin/time -f "cp round $round: %e s, peak RSS %M kB" cp "$FILE" "$WORK/copy.$kind"
    rm -f "$WORK/copy.$kind"
  done
done
rm -f "$WORK/big.mp3" "$WORK/big.m4a"
