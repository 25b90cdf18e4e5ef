#!/usr/bin/env python3
"""Reads a media file's tags with mutagen (an independent reader) and hashes its audio payload, for the tagging tests.

Prints one JSON object: {"format": "id3"|"mp4", "tags": {...}, "payload_sha256": "...", "id3v1": bool}.
MP3: ID3v2 frames by id (text frames as their text; COMM, WXXX, APIC summarised); the payload is everything after the
ID3v2 tag(s). MP4: ilst items by key; the payload is the mdat boxes' contents. Exits 2 when mutagen cannot read it.
"""
import hashlib
import json
import struct
import sys

import mutagen
from mutagen.id3 import ID3
from mutagen.mp4 import MP4


def id3_payload(data):
    start = 0
    while data[start:start + 3] == b"ID3":
        size = 0
        for b in data[start + 6:start + 10]:
            size = (size << 7) | (b & 0x7F)
        footer = 10 if data[start + 3] == 4 and data[start + 5] & 0x10 else 0
        start += 10 + size + footer
    return data[start:]


def mdat_payload(data):
    out = bytearray()
    i = 0
    while i + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[i:i + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[i + 8:i + 16])[0]
            header = 16
        elif size == 0:
            size = len(data) - i
        if kind == b"mdat":
            out += data[i + header:i + size]
        i += size
    return bytes(out)


def main(path):
    with open(path, "rb") as f:
        data = f.read()
    result = {}
    try:
        if data[4:8] == b"ftyp":
            mp4 = MP4(path)
            tags = {}
            for key, value in (mp4.tags or {}).items():
                if key == "covr":
                    tags[key] = [{"bytes": len(bytes(v)), "format": int(v.imageformat)} for v in value]
                elif key in ("trkn", "disk"):
                    tags[key] = [list(v) for v in value]
                elif isinstance(value, (list, tuple)):
                    tags[key] = [v if isinstance(v, str) else (v.decode("utf-8", "replace") if isinstance(v, bytes) else v) for v in value]
                else:
                    tags[key] = value  # a flag such as pcst
            result = {"format": "mp4", "tags": tags, "payload_sha256": hashlib.sha256(mdat_payload(data)).hexdigest(),
                      "duration": mp4.info.length}
        else:
            id3 = ID3(path)
            tags = {}
            for frame in id3.values():
                key = frame.HashKey
                if frame.FrameID == "APIC":
                    tags[key] = {"mime": frame.mime, "type": int(frame.type), "bytes": len(frame.data)}
                elif frame.FrameID == "COMM":
                    tags[key] = {"lang": frame.lang, "text": list(frame.text)}
                elif frame.FrameID == "WXXX":
                    tags[key] = frame.url
                elif hasattr(frame, "text"):
                    tags[key] = [str(t) for t in frame.text]
            payload = id3_payload(data)
            result = {"format": "id3", "version": list(id3.version), "tags": tags,
                      "payload_sha256": hashlib.sha256(payload).hexdigest(),
                      "id3v1": len(data) >= 128 and data[-128:-125] == b"TAG"}
    except mutagen.MutagenError as error:
        print(json.dumps({"error": str(error)}))
        sys.exit(2)
    print(json.dumps(result, default=str))


if __name__ == "__main__":
    main(sys.argv[1])
