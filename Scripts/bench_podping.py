#!/usr/bin/env python3
"""Podping benchmark server (not a test): N feeds on 127.0.0.1 and a fake Hive chain beside them.

Every `--every` seconds one feed (chosen with a fixed seed) gains an episode; the chain produces a block every 3 s
holding a podping (`pp_podcast_update` by `podping.aaa`) for each feed that gained one since the last block, in the
format public nodes answer `block_api.get_block_range` and `condenser_api.get_dynamic_global_properties` with.
Feeds answer with a real ETag and 304 to a matching If-None-Match. The server logs each published episode with the
exact time of the block that announced it (`--log`, JSON Lines) and counts feed requests (GET /stats).

    bench_podping.py --port 18510 --feeds 1000 --log published.jsonl --seed 7 [--every 2] [--start-delay 0]
"""
import argparse
import hashlib
import json
import random
import threading
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--feeds", type=int, default=1000)
ap.add_argument("--log", required=True)
ap.add_argument("--seed", type=int, default=7)
ap.add_argument("--every", type=float, default=2.0, help="seconds between new episodes (2 s = 30 a minute)")
ap.add_argument("--publish", choices=["on", "off"], default="off", help="start publishing at once")
args = ap.parse_args()

lock = threading.Lock()
rng = random.Random(args.seed)
base = time.time() - 86400 * 30
# Each feed's history: 10% publish hourly, 30% daily, 60% weekly (what the learned schedule works from).
feeds = []
for i in range(args.feeds):
    r = rng.random()
    gap = 3600 if r < 0.1 else 86400 if r < 0.4 else 7 * 86400
    eps = [(f"f{i}-old{k}", time.time() - gap * (k + 1)) for k in range(10)]
    feeds.append({"episodes": eps, "gap": gap})
requests = {"feed": 0, "not_modified": 0, "rpc": 0}
pending = []          # (feed index, guid) waiting for the next block
blocks = {}           # number -> (time, [(feed, guid)])
head = [90_000_000]
blocks[head[0]] = (time.time(), [])
publishing = [args.publish == "on"]
logf = open(args.log, "a")
counter = [0]


def chain_time(t):
    return datetime.fromtimestamp(int(t), tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")


def feed_xml(i):
    items = "".join(
        f"<item><title>{g}</title><guid isPermaLink=\"false\">{g}</guid>"
        f"<pubDate>{datetime.fromtimestamp(t, tz=timezone.utc).strftime('%a, %d %b %Y %H:%M:%S +0000')}</pubDate>"
        f"<enclosure url=\"http://127.0.0.1:{args.port}/media/{g}.mp3\" length=\"1000\" type=\"audio/mpeg\"/></item>"
        for g, t in sorted(feeds[i]["episodes"], key=lambda e: -e[1])[:20]
    )
    return (
        f"<?xml version=\"1.0\"?><rss version=\"2.0\" xmlns:podcast=\"https://podcastindex.org/namespace/1.0\">"
        f"<channel><title>Show {i}</title><link>http://127.0.0.1:{args.port}/</link>"
        f"<podcast:podping usesPodping=\"true\"/>{items}</channel></rss>"
    ).encode()


def publisher():
    next_at = time.time()
    while True:
        time.sleep(max(0, next_at - time.time()))
        next_at += args.every
        if not publishing[0]:
            continue
        with lock:
            i = rng.randrange(args.feeds)
            counter[0] += 1
            guid = f"f{i}-new{counter[0]}"
            feeds[i]["episodes"].append((guid, time.time()))
            pending.append((i, guid))


def producer():
    next_at = time.time() + 3
    while True:
        time.sleep(max(0, next_at - time.time()))
        next_at += 3
        now = time.time()
        with lock:
            head[0] += 1
            blocks[head[0]] = (now, list(pending))
            for i, guid in pending:
                logf.write(json.dumps({"feed": i, "guid": guid, "block": head[0], "block_time": now}) + "\n")
            logf.flush()
            pending.clear()
            for old in [n for n in blocks if n < head[0] - 2000]:
                del blocks[old]


def block_json(n):
    t, pings = blocks.get(n, (time.time(), []))
    ops = []
    for i, _ in pings:
        payload = json.dumps({"version": "1.0", "medium": "podcast", "reason": "update",
                              "iris": [f"http://127.0.0.1:{args.port}/feed/{i}.xml"],
                              "sessionId": 18446744073709551616123, "timestampNs": int(t * 1e9)})
        ops.append({"ref_block_num": n & 0xFFFF, "ref_block_prefix": 1, "expiration": chain_time(t + 60),
                    "operations": [{"type": "custom_json_operation", "value": {
                        "required_auths": [], "required_posting_auths": ["podping.aaa"],
                        "id": "pp_podcast_update", "json": payload}}],
                    "extensions": [], "signatures": ["1f"]})
    return {"previous": "%08x" % (n - 1) + "ab" * 16, "timestamp": chain_time(t), "witness": "bench",
            "transaction_merkle_root": "0" * 40, "extensions": [], "witness_signature": "1f",
            "transactions": ops, "block_id": "%08x" % n + "ab" * 16, "signing_key": "STM5",
            "transaction_ids": ["%040x" % (n * 100 + k) for k in range(len(ops))]}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, status, body, headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/stats":
            with lock:
                body = json.dumps(dict(requests, head=head[0], published=counter[0])).encode()
            return self.send(200, body, [("Content-Type", "application/json")])
        if self.path in ("/start", "/stop"):
            publishing[0] = self.path == "/start"
            return self.send(200, b"ok\n")
        if self.path.startswith("/feed/") and self.path.endswith(".xml"):
            i = int(self.path[6:-4])
            with lock:
                body = feed_xml(i)
                requests["feed"] += 1
            etag = '"' + hashlib.sha1(body).hexdigest() + '"'
            if self.headers.get("If-None-Match") == etag:
                with lock:
                    requests["not_modified"] += 1
                return self.send(304, b"", [("ETag", etag)])
            return self.send(200, body, [("Content-Type", "application/rss+xml"), ("ETag", etag)])
        self.send(404, b"not found")

    def do_POST(self):
        call = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        method = call.get("method")
        with lock:
            requests["rpc"] += 1
            if method == "condenser_api.get_dynamic_global_properties":
                result = {"head_block_number": head[0], "time": chain_time(blocks[head[0]][0])}
            elif method == "block_api.get_block_range":
                first = call["params"]["starting_block_num"]
                count = call["params"]["count"]
                result = {"blocks": [block_json(n) for n in range(first, min(first + count, head[0] + 1))]}
            else:
                result = None
        body = json.dumps({"jsonrpc": "2.0", "result": result, "id": call.get("id", 1)}).encode()
        self.send(200, body, [("Content-Type", "application/json")])


threading.Thread(target=publisher, daemon=True).start()
threading.Thread(target=producer, daemon=True).start()
ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()
