"""A small server of Nextcloud's gPodder Sync API (the nextcloud-gpodder app), written from its published README for
podfresh's sync tests: one list per user, HTTP basic authentication with an app password, and the same /_test/ control
API as gpodder_server.py (faults, the requests served). Only the Python standard library; 127.0.0.1 only.

  GET  /index.php/apps/gpoddersync/subscriptions?since=T      -> {"add": [...], "remove": [...], "timestamp": N}
  POST /index.php/apps/gpoddersync/subscription_change/create {"add": [...], "remove": [...]} -> {"timestamp": N}
  GET  /index.php/apps/gpoddersync/episode_action?since=T      -> {"actions": [...], "timestamp": N}
  POST /index.php/apps/gpoddersync/episode_action/create      [ {...}, ... ] -> {"timestamp": N}

Episode actions follow the app's published README and its code: one action per episode and user (found by guid, else
by episode URL; an upload replaces it), `since` compared with the action's own timestamp, actions answered with their
name in capitals (`PLAY`) and -1 for an absent position.

Usage: python nextcloud_server.py --user NAME --password APP-PASSWORD [--port N] [--state FILE]
Prints "listening PORT" once it accepts connections.
"""
from __future__ import annotations

import argparse
import base64
import calendar
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

PREFIX = "/index.php/apps/gpoddersync/"


class State:
    def __init__(self, path: str | None):
        self.lock = threading.Lock()
        self.path = path
        self.subscriptions: dict[str, dict] = {}  # url -> {"created": t, "deleted": t or 0}
        self.actions: list[dict] = []
        self.next_id = 0
        self.faults: list[dict] = []
        self.served: list[dict] = []
        if path and os.path.exists(path):
            with open(path) as f:
                saved = json.load(f)
            self.subscriptions = saved.get("subscriptions", {})
            self.actions = saved.get("actions", [])
            self.next_id = max([a.get("id", 0) for a in self.actions] or [0])

    def save(self):
        if self.path:
            with open(self.path + ".tmp", "w") as f:
                json.dump({"subscriptions": self.subscriptions, "actions": self.actions}, f)
            os.replace(self.path + ".tmp", self.path)


def episode_action(item: dict) -> dict:
    """One uploaded action as the app stores it: the action's name in capitals (its GET answers `PLAY`), `started`,
    `position` and `total` -1 when absent, and the timestamp (`YYYY-MM-DDTHH:MM:SS`, required) also as Unix time."""
    stamp = item["timestamp"]
    epoch = calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%S"))
    return {
        "podcast": str(item["podcast"]),
        "episode": str(item["episode"]),
        "guid": item.get("guid"),
        "action": str(item["action"]).upper(),
        "timestamp": stamp,
        "started": int(item.get("started", -1)),
        "position": int(item.get("position", -1)),
        "total": int(item.get("total", -1)),
        "_epoch": epoch,
    }


def make_handler(state: State, user: str, password: str):
    expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, status: int, body: object | None = None, raw: bytes | None = None):
            data = raw if raw is not None else (b"" if body is None else json.dumps(body).encode())
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def body(self) -> bytes:
            # Read once, before any answer: a body left unread would be taken for the next request on the connection.
            if not hasattr(self, "_body"):
                length = int(self.headers.get("Content-Length") or 0)
                self._body = self.rfile.read(length) if length else b""
            return self._body

        def fault(self) -> bool:
            path = urlsplit(self.path).path
            for fault in state.faults:
                if fault.get("times", 1) == 0:
                    continue
                if fault.get("method") not in (None, self.command) or fault.get("match", "") not in path:
                    continue
                fault["times"] = fault.get("times", 1) - 1
                kind = fault["kind"]
                if kind == "status":
                    self.reply(int(fault["status"]), raw=b"fault injected")
                    return True
                if kind == "malformed":
                    self.reply(200, raw=b'{"add": ["http://a.example/feed"')
                    return True
                if kind == "delay":
                    time.sleep(float(fault["seconds"]))
                if kind == "die":
                    os._exit(3)
            return False

        def control(self) -> bool:
            path = urlsplit(self.path).path
            if not path.startswith("/_test/"):
                return False
            if path == "/_test/fault":
                state.faults.append(json.loads(self.body()))
                self.reply(200, {"faults": len(state.faults)})
            elif path == "/_test/clear":
                state.faults.clear()
                state.served.clear()
                self.reply(200, {})
            elif path == "/_test/served":
                self.reply(200, state.served)
            else:
                self.reply(404, {})
            return True

        def handle_any(self):
            if hasattr(self, "_body"):
                del self._body
            self.body()
            if self.control():
                return
            parts = urlsplit(self.path)
            state.served.append({"method": self.command, "path": parts.path, "query": parts.query})
            if self.fault():
                return
            if self.headers.get("Authorization") != expected:
                self.reply(401, {"message": "Current user is not logged in"})
                return
            if not parts.path.startswith(PREFIX):
                self.reply(404, {"message": "Page not found"})
                return
            route = parts.path[len(PREFIX):]
            query = parse_qs(parts.query)
            since = int((query.get("since") or ["0"])[0] or 0)
            now = int(time.time())
            with state.lock:
                if self.command == "GET" and route == "subscriptions":
                    add = [u for u, s in state.subscriptions.items() if s["created"] > since and not s["deleted"]]
                    remove = [u for u, s in state.subscriptions.items() if s["deleted"] and s["deleted"] > since]
                    self.reply(200, {"add": add, "remove": remove, "timestamp": now})
                elif self.command == "POST" and route == "subscription_change/create":
                    change = json.loads(self.body() or b"{}")
                    for url in change.get("add", []):
                        current = state.subscriptions.get(url)
                        if current is None or current["deleted"]:
                            state.subscriptions[url] = {"created": now, "deleted": 0}
                    for url in change.get("remove", []):
                        if url in state.subscriptions and not state.subscriptions[url]["deleted"]:
                            state.subscriptions[url]["deleted"] = now
                    state.save()
                    self.reply(200, {"timestamp": now})
                elif self.command == "GET" and route == "episode_action":
                    # As the app's EpisodeActionMapper: actions whose own time is after `since`; the answer's
                    # timestamp is the server's time now.
                    actions = [a for a in state.actions if a["_epoch"] > since]
                    self.reply(200, {
                        "actions": [{k: v for k, v in a.items() if not k.startswith("_")} for a in actions],
                        "timestamp": now,
                    })
                elif self.command == "POST" and route == "episode_action/create":
                    try:
                        items = json.loads(self.body() or b"[]")
                        parsed = [episode_action(item) for item in items]
                    except (ValueError, KeyError, TypeError) as error:
                        self.reply(400, {"message": f"bad episode action: {error}"})
                        return
                    for action in parsed:
                        # As the app's EpisodeActionSaver: one action per episode and user, found by guid, else by
                        # episode URL; a new one replaces it (keeping its id, and its guid when the new has none).
                        existing = None
                        if action["guid"] is not None:
                            existing = next((a for a in state.actions if a["guid"] == action["guid"]), None)
                        if existing is None:
                            existing = next((a for a in state.actions if a["episode"] == action["episode"]), None)
                        if existing is None:
                            state.next_id += 1
                            action["id"] = state.next_id
                            state.actions.append(action)
                        else:
                            action["id"] = existing["id"]
                            if action["guid"] is None:
                                action["guid"] = existing["guid"]
                            existing.clear()
                            existing.update(action)
                    state.save()
                    self.reply(200, {"timestamp": now})
                else:
                    self.reply(404, {"message": "Page not found"})

        do_GET = handle_any
        do_POST = handle_any

    return Handler


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--state")
    args = parser.parse_args()
    state = State(args.state)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(state, args.user, args.password))
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
