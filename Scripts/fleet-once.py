#!/usr/bin/env python3
"""Fleet check (not a test): do several podfresh workers on one PostgreSQL fetch each feed once per run, and how long
does a command take to give up when the database goes away?

Starts a throwaway PostgreSQL cluster and a loopback HTTP server that counts requests per path, subscribes one
database to N generated feeds, then:
  all   runs W workers of `refresh --all` at once, R times, and prints fetches per run and feeds fetched more than once;
  gone  starts `refresh --all` (slow feeds), `watch` and `download` (slow media), stops the cluster, and prints how long
        each took to exit and with which status.

  Scripts/fleet-once.py --bin .build/debug/podfresh [--feeds 200] [--workers 3] [--runs 2] [--port 18400]
                        [--pg-port 18401] [--mode all|gone|both]
"""
import argparse
import collections
import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time


def feed(number, base):
    items = "\n".join(
        f"<item><title>show{number} episode {i}</title><guid>show{number}-{i}</guid>"
        f"<pubDate>Mon, {i:02d} Jan 2024 10:00:00 GMT</pubDate>"
        f'<enclosure url="{base}/m/{number}-{i}.mp3" length="40000" type="audio/mpeg"/></item>'
        for i in range(1, 4))
    return (f'<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>show{number}</title>'
            f"{items}</channel></rss>").encode()


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client that hung up (a worker that exited) is not news

    def __init__(self, port):
        super().__init__(("127.0.0.1", port), Handler)
        self.counts = collections.Counter()
        self.lock = threading.Lock()
        self.delay = 0.0
        self.base = f"http://127.0.0.1:{port}"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        with self.server.lock:
            self.server.counts[self.path] += 1
        time.sleep(self.server.delay)
        if self.path.startswith("/feeds/"):
            body = feed(int(self.path.split("/")[-1].split(".")[0]), self.server.base)
            kind = "application/rss+xml"
        elif self.path.startswith("/m/"):
            time.sleep(1.0)
            body = b"\x07" * 40000
            kind = "audio/mpeg"
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Cluster:
    def __init__(self, port):
        self.port = port
        self.bin = os.path.dirname(sorted(
            os.path.join(d, "bin/initdb") for d in
            (os.path.join("/usr/lib/postgresql", v) for v in os.listdir("/usr/lib/postgresql")))[-1])
        self.dir = tempfile.mkdtemp(prefix="podfresh-fleet-once-")
        self.as_pg = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        if os.getuid() == 0:
            shutil.chown(self.dir, "postgres")
        subprocess.run(self.as_pg + [f"{self.bin}/initdb", "-D", f"{self.dir}/data", "--auth=trust", "-U", "postgres",
                                     "--no-sync"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(self.as_pg + [f"{self.bin}/pg_ctl", "-D", f"{self.dir}/data", "-l", f"{self.dir}/log", "-w",
                                     "-o", f"-p {port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
                                     "-c max_connections=200", "start"], check=True, stdout=subprocess.DEVNULL)
        self.running = True

    def url(self, database):
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}?sslmode=disable"

    def createdb(self, name):
        subprocess.run(self.as_pg + [f"{self.bin}/createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U",
                                     "postgres", name], check=True)

    def stop(self):
        if self.running:
            subprocess.run(self.as_pg + [f"{self.bin}/pg_ctl", "-D", f"{self.dir}/data", "-m", "immediate", "stop"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.running = False

    def remove(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def run(binary, database, args, **kwargs):
    env = dict(os.environ, PODFRESH_DATABASE=database, TERM="dumb")
    env.update(kwargs.pop("env", {}))
    return subprocess.Popen([binary] + args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kwargs)


def subscribe(binary, cluster, server, name, feeds):
    cluster.createdb(name)
    database = cluster.url(name)
    urls = [f"{server.base}/feeds/{n}.xml" for n in range(1, feeds + 1)]
    added = run(binary, database, ["add", "--no-fetch"] + urls)
    added.wait()
    assert added.returncode == 0, added.stderr.read().decode()
    return database


def check_all(binary, cluster, server, feeds, workers, runs):
    database = subscribe(binary, cluster, server, "once", feeds)
    for number in range(1, runs + 1):
        with server.lock:
            server.counts.clear()
        started = time.monotonic()
        procs = [run(binary, database, ["refresh", "--all", "--quiet", "--jobs", "5", "--per-host", "16"])
                 for _ in range(workers)]
        statuses = [p.wait() for p in procs]
        wall = time.monotonic() - started
        with server.lock:
            fetched = sum(server.counts.values())
            twice = sum(1 for c in server.counts.values() if c > 1)
        print(f"run {number}: {workers} workers `refresh --all` over {feeds} feeds: {fetched} fetches, "
              f"{twice} feeds fetched more than once, exit {statuses}, {wall:.1f} s")


def check_gone(binary, cluster, server, feeds):
    database = subscribe(binary, cluster, server, "gone", feeds)
    folder = tempfile.mkdtemp(prefix="podfresh-fleet-once-episodes-")
    env = {"PODFRESH_DOWNLOADS": folder}
    first = run(binary, database, ["refresh", "--quiet", "--jobs", "5"])
    first.wait()
    for number in range(1, 6):
        setting = run(binary, database, ["set", str(number), "--download", "on", "--keep", "all", "--backlog", "all"])
        setting.wait()
    server.delay = 0.7
    procs = {
        "refresh --all": run(binary, database, ["refresh", "--all", "--quiet", "--jobs", "2"]),
        "watch": run(binary, database, ["watch", "--interval", "1s", "--quiet", "--jobs", "2"]),
        "download": run(binary, database, ["download", "--quiet", "--jobs", "1"], env=env),
    }
    # Stopped once every command is under way: media and feeds requested, and watch past its start.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with server.lock:
            media = sum(c for p, c in server.counts.items() if p.startswith("/m/"))
        if media > 0:
            break
        time.sleep(0.05)
    time.sleep(3)
    cluster.stop()
    stopped = time.monotonic()
    ended = {}
    while len(ended) < len(procs) and time.monotonic() - stopped < 150:
        for name, proc in procs.items():
            if name not in ended and proc.poll() is not None:
                ended[name] = time.monotonic() - stopped
        time.sleep(0.05)
    for name, proc in procs.items():
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        stderr = proc.stderr.read().decode().strip().splitlines()
        last = stderr[-1] if stderr else ""
        took = f"{ended[name]:.1f} s" if name in ended else "still running after 150 s (killed)"
        print(f"{name}: exit {proc.returncode} {took} after the server stopped; last line: {last[:160]}")
    for command in (["list"], ["refresh"], ["watch"], ["download"]):
        began = time.monotonic()
        proc = run(binary, database, command)
        proc.wait()
        print(f"{' '.join(command)} against the stopped server: exit {proc.returncode} in "
              f"{time.monotonic() - began:.1f} s")
    shutil.rmtree(folder, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--feeds", type=int, default=200)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--port", type=int, default=18400)
    parser.add_argument("--pg-port", type=int, default=18401)
    parser.add_argument("--mode", choices=["all", "gone", "both"], default="both")
    options = parser.parse_args()
    server = Server(options.port)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    cluster = Cluster(options.pg_port)
    try:
        if options.mode in ("all", "both"):
            check_all(options.bin, cluster, server, options.feeds, options.workers, options.runs)
        if options.mode in ("gone", "both"):
            check_gone(options.bin, cluster, server, 40)
    finally:
        cluster.remove()
        server.shutdown()


if __name__ == "__main__":
    sys.exit(main())
