#!/usr/bin/env python3
"""The simulated internet for Scripts/bench-internet.sh: lays a generated corpus over hosts, measures one command
inside the namespace against the simulator's counters, and prints the table.

  internet_bench.py layout --corpus DIR --out DIR [--seed S] [--per-host P] [--rate BYTES_PER_S] [--dns-ms MS]
      writes DIR/layout.json (for podfresh-netsim), DIR/urls (newsboat, reader), DIR/feeds.opml (podfresh) and
      DIR/plan.json (the live feeds, the floor and how it was found)
  internet_bench.py measure --out RESULTS.jsonl --plan plan.json --ns NAME --tool T --case C [--rep R]
                            [--count-cmd SHELLCMD] -- CMD ARGS...
      zeroes the simulator's counters, runs CMD inside the namespace under /usr/bin/time -v, appends one record
  internet_bench.py run-with-test-ca SCRIPT ARGS...      (under the venv's python, inside the namespace)
      runs a Python script with requests trusting $REQUESTS_CA_BUNDLE (for reader, which bypasses that variable)
  internet_bench.py table RESULTS.jsonl plan.json
      one markdown table: wall, CPU, peak RSS, requests, 304s, connections, DNS queries, most requests at once on one
      host, most lookups in flight, live feeds fetched, and each row's wall time as a multiple of the floor
  podfresh refresh --all --json | internet_bench.py timeline layout.json      (the refresh inside the namespace)
      stamps each event as it arrives and says what set the run's end: when it ended, when the busiest host's last
      feed ended, when the last slow feed (an answer of 5 s or more) was first asked, and how long after their
      answers were due the slow feeds ended

Host layout for N feeds (N = 1000 as the issue describes real podcasts; smaller N scaled in proportion):
  one hosting platform with 28% of the feeds (HTTPS, HTTP/2), four with 6% each (HTTPS; two with HTTP/2),
  hosts of 6 feeds for 18% (80% HTTPS), one self-hosted name per feed for the remaining 30% (70% HTTPS).
  Answer delays (before the response head), log-uniform: platforms 0.1-0.6 s, 6-feed hosts 0.1-1 s, self-hosted
  0.1-2 s; 1% of the feeds (at least one) on self-hosted names take 10-15 s. Every name takes --dns-ms to resolve.
  Self-hosted names that fail, 0.3% each (at least one each): NXDOMAIN, connection refused, DNS never answers.
  Two paths on 6-feed hosts answer 404 (N >= 100). Bodies at --rate per connection.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
NETSIM = os.path.join(HERE, "netsim.sh")


# ---------------------------------------------------------------------------------------------------------- layout

def log_uniform(r, lo, hi):
    return math.exp(r.uniform(math.log(lo), math.log(hi)))


def make_layout(a):
    rows = [line.rstrip("\n").split("\t") for line in open(os.path.join(a.corpus, "manifest.tsv"))][1:]
    names = [row[0] for row in rows]
    n = len(names)
    r = random.Random(f"internet-{a.seed}-{n}")
    order = list(range(n))
    r.shuffle(order)
    scale = n / 1000

    # Hosts: (name, count, tls, h2, delay range, kind)
    groups = []
    groups.append(("feeds.megacast.test", max(1, round(280 * scale)), True, True, (0.1, 0.6), "platform"))
    for i, h2 in enumerate([True, True, False, False]):
        groups.append((f"media.platform{i + 1}.test", max(1, round(60 * scale)), True, h2, (0.1, 0.6), "platform"))
    n_six = max(1, round(30 * scale))
    for i in range(n_six):
        groups.append((f"podcasts.network{i + 1:03d}.test", 6, r.random() < 0.8, False, (0.1, 1.0), "network"))
    used = sum(g[1] for g in groups)
    if used > n:
        raise SystemExit(f"{n} feeds are too few for this layout (need at least {used + 1})")
    for i in range(n - used):
        groups.append((f"www.show{i + 1:04d}.test", 1, r.random() < 0.7, False, (0.1, 2.0), "self"))

    hosts = []
    feed_of = {}  # name -> (host, feed dict)
    k = 0
    for index, (host, count, tls, h2, (lo, hi), kind) in enumerate(groups):
        address = f"127.1.{index // 250}.{index % 250 + 1}"
        feeds = []
        for _ in range(count):
            name = names[order[k]]
            k += 1
            feed = {"path": f"/feeds/{name}.xml", "file": f"feeds/{name}.xml",
                    "delayMs": round(log_uniform(r, lo, hi) * 1000)}
            feeds.append(feed)
            feed_of[name] = (host, feed)
        hosts.append({"name": host, "address": address, "tls": tls, "h2": h2, "feeds": feeds, "kind": kind})

    self_hosts = [h for h in hosts if h["kind"] == "self"]
    r.shuffle(self_hosts)
    n_fail = max(1, round(3 * scale))
    n_slow = max(1, round(10 * scale))
    missing = self_hosts[:n_fail]
    refused = self_hosts[n_fail:2 * n_fail]
    silent = self_hosts[2 * n_fail:3 * n_fail]
    slow = self_hosts[3 * n_fail:3 * n_fail + n_slow]
    for h in missing:
        h["dns"] = "missing"
    for h in refused:
        h["refuse"] = True
    for h in silent:
        h["dns"] = "silent"
    for h in slow:
        h["feeds"][0]["delayMs"] = round(r.uniform(10, 15) * 1000)
    if n >= 100:
        networks = [h for h in hosts if h["kind"] == "network"]
        for h in networks[:2]:
            h["feeds"][-1]["status"] = 404

    steady = lay_steady_state(a, r, hosts, feed_of, names)

    # Live feeds and the floor.
    sizes = {}
    for name in names:
        p = os.path.join(a.corpus, "feeds", name + ".xml")
        gz = p + ".gz"
        sizes[name] = os.path.getsize(gz) if os.path.exists(gz) else os.path.getsize(p)
    live = []
    per_host_cold = {}
    per_host_warm = {}
    slowest_cold = slowest_warm = 0.0
    dns_s = a.dns_ms / 1000
    host_by_name = {h["name"]: h for h in hosts}
    live = []
    for name in names:
        host, feed = feed_of[name]
        h = host_by_name[host]
        if h.get("dns", "ok") != "ok" or h.get("refuse") or feed.get("status"):
            continue
        live.append({"name": name, "host": host, "path": feed["path"]})
        cold = feed["delayMs"] / 1000 + sizes[name] / a.rate
        warm = feed["delayMs"] / 1000
        per_host_cold[host] = per_host_cold.get(host, 0) + cold
        per_host_warm[host] = per_host_warm.get(host, 0) + warm
        slowest_cold = max(slowest_cold, cold)
        slowest_warm = max(slowest_warm, warm)
    busiest_cold = max(per_host_cold.items(), key=lambda kv: kv[1])
    busiest_warm = max(per_host_warm.items(), key=lambda kv: kv[1])
    floor_cold = dns_s + max(slowest_cold, busiest_cold[1] / a.per_host)
    floor_warm = dns_s + max(slowest_warm, busiest_warm[1] / a.per_host)

    for h in hosts:
        h.pop("kind")
    layout = {"dns": {"delayMs": a.dns_ms}, "bytesPerSecond": a.rate, "hosts": hosts}
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "layout.json"), "w") as f:
        json.dump(layout, f, indent=1)
    urls = []
    for name in names:
        host, feed = feed_of[name]
        scheme = "https" if host_by_name[host]["tls"] else "http"
        urls.append((name, f"{scheme}://{host}{feed['path']}"))
    with open(os.path.join(a.out, "urls"), "w") as f:
        f.writelines(u + "\n" for _, u in urls)
    with open(os.path.join(a.out, "feeds.opml"), "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<opml version="2.0">\n<head><title>internet</title></head>'
                "\n<body>\n")
        for name, u in urls:
            f.write(f'<outline type="rss" text="{name}" title="{name}" xmlUrl="{u}"/>\n')
        f.write("</body>\n</opml>\n")
    plan = {
        "feeds": n, "hosts": len(hosts), "live": live, "per_host": a.per_host, "rate": a.rate, "dns_ms": a.dns_ms,
        "floor": {"cold": round(floor_cold, 2), "warm": round(floor_warm, 2)},
        "floor_parts": {
            "cold": {"slowest_feed_s": round(slowest_cold, 2), "busiest_host": busiest_cold[0],
                     "busiest_host_sum_s": round(busiest_cold[1], 2)},
            "warm": {"slowest_feed_s": round(slowest_warm, 2), "busiest_host": busiest_warm[0],
                     "busiest_host_sum_s": round(busiest_warm[1], 2)},
        },
        "broken": {"missing": [h["name"] for h in missing], "refused": [h["name"] for h in refused],
                   "silent": [h["name"] for h in silent], "status404": 2 if n >= 100 else 0},
        "tls_hosts": sum(h["tls"] for h in hosts), "h2_hosts": sum(h["h2"] for h in hosts),
        "steady": {
            "changed_live": sum(1 for f in live if feed_of[f["name"]][1].get("changedFile")),
            "mixed_none_hosts": steady["none_hosts"], "mixed_stamped_hosts": steady["stamped_hosts"],
            "mixed_none_feeds": steady["none_feeds"], "mixed_stamped_feeds": steady["stamped_feeds"],
        },
    }
    with open(os.path.join(a.out, "plan.json"), "w") as f:
        json.dump(plan, f, indent=1)
    print(f"layout: {n} feeds over {len(hosts)} hosts ({plan['tls_hosts']} HTTPS, {plan['h2_hosts']} HTTP/2), "
          f"{len(live)} live; broken names: {len(missing)} NXDOMAIN, {len(refused)} refused, {len(silent)} silent; "
          f"floor cold {plan['floor']['cold']} s, warm {plan['floor']['warm']} s (per-host limit {a.per_host})")


# ---------------------------------------------------------------------------------------------- steady state (#36)

def variant(corpus, name, suffix, edit, source=None):
    """Writes `source` (default feeds/NAME.xml, relative to the corpus) edited by `edit` (bytes -> bytes) as
    variants/NAME.SUFFIX.xml and its .gz, once; returns its path relative to the corpus (what the simulator serves)."""
    import gzip
    rel = f"variants/{name}.{suffix}.xml"
    path = os.path.join(corpus, rel)
    if not os.path.exists(path + ".gz"):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = edit(open(os.path.join(corpus, source or f"feeds/{name}.xml"), "rb").read())
        with open(path, "wb") as f:
            f.write(data)
        with gzip.open(path + ".gz", "wb", compresslevel=6) as f:
            f.write(data)
    return rel


def with_new_item(data, name):
    """The feed with one new episode at the top, a day newer than its newest."""
    import email.utils
    import re
    first = data.index(b"<item>")
    m = re.search(rb"<pubDate>([^<]+)</pubDate>", data[first:])
    newest = email.utils.parsedate_to_datetime(m.group(1).decode()) if m else None
    import datetime as dt
    when = (newest or dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc)) + dt.timedelta(days=1)
    stamp = email.utils.format_datetime(when).encode()
    item = (b"<item>\n<title>A new episode of " + name.encode() + b"</title>\n"
            b"<guid isPermaLink=\"false\">steady-new-" + name.encode() + b"</guid>\n"
            b"<pubDate>" + stamp + b"</pubDate>\n"
            b"<enclosure url=\"http://127.0.0.1:18080/media/" + name.encode() + b"/new.mp3\" length=\"1000\" "
            b"type=\"audio/mpeg\"/>\n<description>Gained since the last run.</description>\n</item>\n")
    data = re.sub(rb"<lastBuildDate>[^<]*</lastBuildDate>", b"<lastBuildDate>" + stamp + b"</lastBuildDate>", data,
                  count=1)
    first = data.index(b"<item>")
    return data[:first] + item + data[first:]


def with_build_date(data, stamp):
    import re
    return re.sub(rb"<lastBuildDate>[^<]*</lastBuildDate>", b"<lastBuildDate>" + stamp + b"</lastBuildDate>", data,
                  count=1)


def lay_steady_state(a, r, hosts, feed_of, names):
    """Issue #36's runs: 5% of the feeds gain one new item at the top (`changedFile`, served in the simulator's
    `changed` mode); 45% of the hosts send no validators in its `mixed` mode, and a fifth of those (among hosts of at
    most 6 feeds) change their `lastBuildDate` on every request (`stampedFiles`, served in turn)."""
    s = random.Random(f"steady-{a.seed}-{len(names)}")
    for name in sorted(s.sample(names, max(1, round(len(names) * 0.05)))):
        feed_of[name][1]["changedFile"] = variant(a.corpus, name, "changed", lambda d, n=name: with_new_item(d, n))
    candidates = [h for h in hosts if h.get("dns", "ok") == "ok" and not h.get("refuse")]
    none = s.sample(candidates, round(len(candidates) * 0.45))
    small = [h for h in none if len(h["feeds"]) <= 6]
    stamped = s.sample(small, min(len(small), round(len(none) / 5)))
    stamped_names = {h["name"] for h in stamped}
    counts = {"none_hosts": len(none) - len(stamped), "stamped_hosts": len(stamped), "none_feeds": 0,
              "stamped_feeds": 0}
    for h in none:
        for feed in h["feeds"]:
            if feed.get("status"):
                continue
            name = feed["path"].rsplit("/", 1)[1][:-len(".xml")]
            if h["name"] in stamped_names:
                feed["mixed"] = "stamped"
                # Stamped from the feed as it stands once the changed run gained it an item (the simulator serves
                # the changed file from then on).
                feed["stampedFiles"] = [
                    variant(a.corpus, name, f"stamp{i}",
                            lambda d, i=i: with_build_date(d, f"Sat, 0{i} Nov 2026 12:00:0{i} +0000".encode()),
                            source=feed.get("changedFile"))
                    for i in (1, 2)]
                counts["stamped_feeds"] += 1
            else:
                feed["mixed"] = "none"
                counts["none_feeds"] += 1
    return counts


# ---------------------------------------------------------------------------------------------------------- measure

def stats(ns, reset=False):
    args = [NETSIM, "stats", ns] + (["reset"] if reset else [])
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)


def parse_time_v(text):
    out = {}
    for line in text.splitlines():
        k, _, v = line.strip().partition(": ")
        if k == "User time (seconds)":
            out["user_s"] = float(v)
        elif k == "System time (seconds)":
            out["sys_s"] = float(v)
        elif k.startswith("Elapsed (wall clock) time"):
            s = 0.0
            for p in v.split(":"):
                s = s * 60 + float(p)
            out["wall_s"] = s
        elif k == "Maximum resident set size (kbytes)":
            out["maxrss_MB"] = round(int(v) / 1024, 1)
    return out


def measure(a):
    plan = json.load(open(a.plan))
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    stats(a.ns, reset=True)
    with tempfile.NamedTemporaryFile("w+", suffix=".time", delete=False) as tf:
        tpath = tf.name
    log = open(a.log, "ab") if a.log else subprocess.DEVNULL
    t0 = time.time()
    rc = subprocess.call(["/usr/bin/time", "-v", "-o", tpath, NETSIM, "exec", a.ns] + cmd, stdout=log, stderr=log)
    s = stats(a.ns)
    rec = {"tool": a.tool, "case": a.case, "rep": a.rep, "start": round(t0, 1), "cmd": " ".join(cmd), "rc": rc}
    rec.update(parse_time_v(open(tpath).read()))
    os.unlink(tpath)
    rec["cpu_s"] = round(rec.get("user_s", 0) + rec.get("sys_s", 0), 2)
    t = s["totals"]
    fetched = 0
    for feed in plan["live"]:
        p = s["paths"].get(feed["host"] + feed["path"])
        if p and (p["ok"] > 0 or p["notModified"] > 0):
            fetched += 1
    rec["sim"] = {
        "requests": t["requests"], "s304": t["notModified"], "s200": t["ok"], "other": t["otherStatuses"],
        "connections": t["connections"], "h2_requests": t["h2Requests"], "dns_queries": t["dnsQueries"],
        "max_per_host": t["maxRequestsInFlightPerHost"], "max_conns_per_host": t["maxConnectionsOpenPerHost"],
        "max_lookups": t["maxLookupsInFlight"], "live_fetched": fetched, "live": len(plan["live"]),
        "body_MB": round(t["bodyBytes"] / 1e6, 1),
    }
    # How busy the critical path kept its server: the busiest host's requests in flight, on average, from its first
    # request to its last answer (the per-host limit at best).
    busiest = s["hosts"].get(plan["floor_parts"]["cold"]["busiest_host"], {})
    span = (busiest.get("lastFinishedAt") or 0) - (busiest.get("firstRequestAt") or 0)
    rec["sim"]["busiest_in_flight"] = round(busiest.get("requestSeconds", 0) / span, 2) if span > 0 else None
    if a.count_cmd:
        try:
            out = subprocess.run(a.count_cmd, shell=True, capture_output=True, text=True).stdout.strip()
            rec["entries"] = int(out)
        except ValueError:
            pass
    with open(a.out, "a") as f:
        f.write(json.dumps(rec) + "\n")
    m = rec["sim"]
    print(f"  {a.tool:<22} {a.case:<10} wall={rec.get('wall_s')}s cpu={rec['cpu_s']}s rss={rec.get('maxrss_MB')}MB "
          f"req={m['requests']} 304={m['s304']} conns={m['connections']} dns={m['dns_queries']} "
          f"per-host={m['max_per_host']} lookups={m['max_lookups']} live={m['live_fetched']}/{m['live']} rc={rc}",
          file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------------------- table

def table(a):
    plan = json.load(open(a.plan))
    recs = [json.loads(line) for line in open(a.results) if line.strip()]
    groups = {}
    for r in recs:
        groups.setdefault((r["tool"], r["case"]), []).append(r)

    def med(xs):
        xs = sorted(x for x in xs if x is not None)
        return xs[len(xs) // 2] if xs else None

    fc, fw = plan["floor"]["cold"], plan["floor"]["warm"]
    pc, pw = plan["floor_parts"]["cold"], plan["floor_parts"]["warm"]
    print(f"{plan['feeds']} feeds over {plan['hosts']} hosts ({plan['tls_hosts']} HTTPS, {plan['h2_hosts']} HTTP/2), "
          f"{len(plan['live'])} live; DNS {plan['dns_ms']} ms a name; {plan['rate'] / 1e6:g} MB/s a connection; "
          f"per-host limit {plan['per_host']} (podfresh's default)")
    print(f"floor cold: {fc} s = DNS + max(slowest live feed {pc['slowest_feed_s']} s, busiest host "
          f"{pc['busiest_host']} {pc['busiest_host_sum_s']} s / {plan['per_host']})")
    print(f"floor warm: {fw} s = DNS + max(slowest live feed {pw['slowest_feed_s']} s, busiest host "
          f"{pw['busiest_host']} {pw['busiest_host_sum_s']} s / {plan['per_host']})")
    print()
    head = ["tool", "run", "wall s", "x floor", "CPU s", "peak RSS MB", "requests", "304s", "connections",
            "DNS queries", "most at once / host", "busiest host in flight", "most lookups in flight", "live fetched",
            "exit", "episodes stored"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---"] * len(head)) + "|")
    for (tool, case), rs in groups.items():
        wall = med([r.get("wall_s") for r in rs])
        # The steady-state runs (#36) start warm: their floor is the warm one.
        floor = fc if "cold" in case or "whole" in case else fw
        sim = lambda k: med([r["sim"][k] for r in rs])
        cells = [tool, case, f"{wall:.2f}" if wall is not None else "-",
                 f"{wall / floor:.2f}" if wall is not None and floor else "-",
                 f"{med([r['cpu_s'] for r in rs]):.2f}", f"{med([r.get('maxrss_MB') for r in rs])}",
                 sim("requests"), sim("s304"), sim("connections"), sim("dns_queries"), sim("max_per_host"),
                 med([r["sim"].get("busiest_in_flight") for r in rs]), sim("max_lookups"), f"{sim('live_fetched')}/{sim('live')}", med([r["rc"] for r in rs]),
                 med([r.get("entries") for r in rs])]
        print("| " + " | ".join(str(c) for c in cells) + " |")
    steady_ratios(plan, groups, med)
    if any(len(rs) > 1 for rs in groups.values()):
        print(f"\nmedians of {max(len(rs) for rs in groups.values())} runs")


def steady_ratios(plan, groups, med):
    """Issue #36: each steady-state run against the all-304 warm run of the same tool, per repetition, and the changed
    run's new episodes against the feeds that gained one."""
    for tool in sorted({t for t, _ in groups}):
        warm = {r["rep"]: r for r in groups.get((tool, "2 warm"), [])}
        lines = []
        for (t, case), rs in groups.items():
            if t != tool or case[:1] not in "3456" or not warm:
                continue
            cpu = [r["cpu_s"] / warm[r["rep"]]["cpu_s"] for r in rs if r["rep"] in warm and warm[r["rep"]]["cpu_s"]]
            wall = [r["wall_s"] / warm[r["rep"]]["wall_s"] for r in rs if r["rep"] in warm and r.get("wall_s")]
            rss = [r.get("maxrss_MB") for r in rs]
            lines.append(f"  {case}: CPU {', '.join(f'{x:.2f}' for x in cpu)}x the warm run's, wall "
                         f"{', '.join(f'{x:.2f}' for x in wall)}x, peak RSS {', '.join(str(x) for x in rss)} MB")
            if case.startswith("5"):
                before = {r["rep"]: r.get("entries") for r in groups.get((tool, "4 unconditional"), [])}
                for r in rs:
                    if before.get(r["rep"]) is not None and r.get("entries") is not None:
                        lines.append(f"    rep {r['rep']}: {r['entries'] - before[r['rep']]} episodes stored; "
                                     f"{plan.get('steady', {}).get('changed_live')} live feeds gained one")
        if lines:
            print(f"\n{tool}, against its all-304 warm run:")
            print("\n".join(lines))


def run_with_test_ca(argv):
    """Runs a Python script trusting $REQUESTS_CA_BUNDLE (the namespace's bundle with the test CA) in requests.

    reader sends prepared requests through its own session, so requests never reads REQUESTS_CA_BUNDLE and verifies
    against certifi's bundle; pointing certifi there before requests is imported gives it the bundle the rest of the
    namespace trusts (as a real machine's certifi holds the public CAs real feeds are signed by).
    """
    import certifi
    import runpy
    bundle = os.environ["REQUESTS_CA_BUNDLE"]
    certifi.where = lambda: bundle
    sys.argv = argv
    runpy.run_path(argv[0], run_name="__main__")


def timeline(a):
    delays, size = {}, {}
    for host in json.load(open(a.layout))["hosts"]:
        for feed in host["feeds"]:
            delays[(host["name"], feed["path"])] = feed["delayMs"] / 1000
        size[host["name"]] = len(host["feeds"])
    t0 = time.monotonic()
    started, ended, where, last = {}, {}, {}, 0.0
    for line in sys.stdin:
        now = time.monotonic() - t0
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        kind, feed = event.get("event"), event.get("feed_id")
        if kind == "feed_started":
            started[feed] = now
            url = urllib.parse.urlsplit(event["url"])
            where[feed] = (url.hostname, url.path)
        elif kind in ("feed_refreshed", "feed_failed", "feed_cancelled"):  # how a feed's fetch ends (JSONLinesOutput)
            ended[feed] = now
        last = now
    busiest = max(size, key=size.get)
    busiest_end = max((ended.get(f, 0) for f, (h, _) in where.items() if h == busiest), default=0)
    slow = [f for f, key in where.items() if delays.get(key, 0) >= 5 and f in ended]
    late = [ended[f] - started[f] - delays[where[f]] for f in slow]
    print(f"run ended {last:.2f} s; {busiest} ({size[busiest]} feeds) ended {busiest_end:.2f} s")
    if late:
        print(f"{len(slow)} slow feeds: the last first asked at {max(started[f] for f in slow):.2f} s; ended after "
              f"their answers were due by at most {max(late):.2f} s, {sum(late) / len(late):.2f} s on average")


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "run-with-test-ca":
        return run_with_test_ca(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    lay = sub.add_parser("layout")
    lay.add_argument("--corpus", required=True)
    lay.add_argument("--out", required=True)
    lay.add_argument("--seed", type=int, default=1)
    lay.add_argument("--per-host", type=int, default=6)
    lay.add_argument("--rate", type=int, default=5_000_000)
    lay.add_argument("--dns-ms", type=int, default=40)
    mea = sub.add_parser("measure")
    mea.add_argument("--out", required=True)
    mea.add_argument("--plan", required=True)
    mea.add_argument("--ns", required=True)
    mea.add_argument("--tool", required=True)
    mea.add_argument("--case", required=True)
    mea.add_argument("--rep", type=int, default=1)
    mea.add_argument("--count-cmd")
    mea.add_argument("--log", help="append the command's stdout and stderr here")
    mea.add_argument("cmd", nargs=argparse.REMAINDER)
    tab = sub.add_parser("table")
    tab.add_argument("results")
    tab.add_argument("plan")
    tim = sub.add_parser("timeline")
    tim.add_argument("layout")
    a = ap.parse_args()
    {"layout": make_layout, "measure": measure, "table": table, "timeline": timeline}[a.what](a)


if __name__ == "__main__":
    main()
