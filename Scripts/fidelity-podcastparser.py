#!/usr/bin/env python3
"""Parse fidelity against gPodder's podcastparser test suite (a measurement, not a test).

podcastparser ships its test feeds with the dict it must return for each (tests/data/NAME.rss beside NAME.json).
This script serves those feeds on 127.0.0.1 (relative URLs then resolve the same way for both), runs
`podfresh parse --json URL` on each, maps every expected key that podfresh has a counterpart for onto podfresh's
JSON and counts the keys that agree. Keys podfresh does not read at all (payment_url, itunes_owner, generator,
itunes_keywords, subtitle, an episode's itunes_author, paged_feed_first) are counted apart, not as misses.

The mapping follows each side's documented meaning, not its spelling: podcastparser's 0, -1, "" and
"application/octet-stream" stand for "none" where podfresh says null; `published` is compared as Unix time;
`description` (plain text) agrees when podfresh's summary or its show notes, with the tags taken out, say the same
words; `description_html` is podfresh's `description` (the show notes); `guid` is podfresh's identity key `id`.

  python3 Scripts/fidelity-podcastparser.py [--bin PATH] [--data DIR] [--port P] [--verbose]

--bin defaults to .build/release/podfresh, else .build/debug/podfresh. Without --data the podcastparser source
distribution (it carries tests/data) is fetched once with `pip download` into $TMPDIR/podfresh-fidelity.
Prints the figure (keys that agree / keys compared) and every miss, one line each.
"""

import argparse
import calendar
import datetime
import functools
import glob
import html
import http.server
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import threading

PODCASTPARSER = "podcastparser==0.6.11"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Expected keys podfresh does not read: counted, never compared.
FEED_UNREAD = {"payment_url", "itunes_owner", "generator", "itunes_keywords", "paged_feed_first"}
EPISODE_UNREAD = {"payment_url", "subtitle", "itunes_author"}


def fetch_data():
    work = os.path.join(os.environ.get("TMPDIR", tempfile.gettempdir()), "podfresh-fidelity")
    data = glob.glob(os.path.join(work, "podcastparser-*", "tests", "data"))
    if data:
        return data[0]
    os.makedirs(work, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                    "-d", work, PODCASTPARSER], check=True)
    for archive in glob.glob(os.path.join(work, "podcastparser-*.tar.gz")):
        with tarfile.open(archive) as tar:
            tar.extractall(work, filter="data")
    return glob.glob(os.path.join(work, "podcastparser-*", "tests", "data"))[0]


def serve(directory, port):
    handler = functools.partial(QuietHandler, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def none_if_empty(value):
    return None if value in ("", 0, -1, "application/octet-stream", [], None) else value


def words(text):
    if text is None:
        return ""
    text = re.sub(r"<[^>]*>", " ", text)
    return " ".join(html.unescape(text).split())


def epoch(iso):
    if iso is None:
        return None
    moment = datetime.datetime.fromisoformat(iso.replace("Z", "+00:00"))
    return calendar.timegm(moment.utctimetuple())


def enclosures(pp_list):
    return [(e["url"], none_if_empty(e["mime_type"]), none_if_empty(e["file_size"])) for e in pp_list]


def compare_feed(expected, got, base, name):
    """Yields (key, expected, got, agrees) for every comparable key; (key, None, None, None) for unread keys."""
    def rebase(value):
        if isinstance(value, str):
            return value.replace("file://tests/data/", base).replace("file://tests/", base)
        if isinstance(value, list):
            return [rebase(v) for v in value]
        if isinstance(value, tuple):
            return tuple(rebase(v) for v in value)
        if isinstance(value, dict):
            return {k: rebase(v) for k, v in value.items()}
        return value

    expected = rebase(expected)
    for key, want in expected.items():
        if key == "episodes":
            continue
        if key in FEED_UNREAD:
            yield ("feed." + key, None, None, None)
            continue
        if key == "title":
            have = got.get("title")
        elif key == "cover_url":
            have = got.get("image")
        elif key == "itunes_categories":
            want = sorted("/".join(level for level in path if level) for path in want)
            have = sorted(c for c in got.get("categories", []) if "/" in c or c in want)
        elif key == "new_url":
            have = got.get("new_feed_url")
        elif key == "itunes_author":
            have = got.get("author")
        elif key == "funding_url":
            have = (got.get("funding") or [{}])[0].get("url")
        elif key == "paged_feed_next":
            have = got.get("next_page")
        elif key == "import_prohibited":
            have = got.get("locked")
        else:
            have = got.get(key)
        yield ("feed." + key, want, have, none_if_empty(want) == none_if_empty(have))

    want_episodes = expected.get("episodes", [])
    have_episodes = got.get("episodes", [])
    yield ("feed.episode_count", len(want_episodes), len(have_episodes), len(want_episodes) == len(have_episodes))
    have_by_id = {e["id"]: e for e in have_episodes}
    for index, want_episode in enumerate(want_episodes):
        have = have_by_id.get(want_episode.get("guid"))
        if have is None and index < len(have_episodes):
            have = have_episodes[index]
        if have is None:
            for key in want_episode:
                yield ("episode." + key, want_episode[key], None, False)
            continue
        yield from compare_episode(want_episode, have)


def compare_episode(want, have):
    for key, value in want.items():
        if key in EPISODE_UNREAD:
            yield ("episode." + key, None, None, None)
            continue
        if key == "guid":
            got = have.get("id")
        elif key == "total_time":
            got = have.get("duration")
        elif key == "published":
            got = epoch(have.get("published"))
        elif key == "enclosures":
            value = enclosures(value)
            got = [(e["url"], e.get("type"), e.get("length")) for e in have.get("enclosures", [])]
        elif key == "description":
            options = [words(have.get("summary")), words(have.get("description"))]
            agrees = words(value) in options or (not value and not any(options))
            yield ("episode.description", value, have.get("summary"), agrees)
            continue
        elif key == "description_html":
            got = have.get("description")
            agrees = words(value) == words(got)
            yield ("episode.description_html", value, got, agrees)
            continue
        elif key == "episode_art_url":
            got = have.get("image")
        elif key == "type":
            got = have.get("episode_type")
        elif key == "number":
            got = have.get("episode")
        elif key == "chapters":
            # podcastparser keeps whole seconds, podfresh the fraction too (01:02:03.400 is 3723.4).
            value = [(c["start"], c["title"], c.get("href"), c.get("image")) for c in value]
            got = [(int(c.get("start") or 0), c.get("title"), c.get("href"), c.get("image"))
                   for c in have.get("simple_chapters", [])]
        elif key == "transcript_url":
            got = (have.get("transcripts") or [{}])[0].get("url")
        elif key == "chapters_json_url":
            got = have.get("chapters")
        elif key == "persons":
            value = [p.get("name") for p in value]
            got = [p.get("name") for p in have.get("persons", [])]
        else:
            got = have.get(key)
        yield ("episode." + key, value, got, none_if_empty(value) == none_if_empty(got))


def deliberate(name, key, want, have, expected, got, source):
    """Why a miss is a documented difference of choice rather than a misreading, or None."""
    if key == "feed.title" and have is None and want == name:
        return "podcastparser names an untitled feed after its file"
    if key == "episode.title" and have is None:
        return "podcastparser titles an untitled episode after its enclosure's file"
    if key == "episode.guid" and isinstance(want, str) and isinstance(have, str):
        if want.endswith("/" + have):
            return "podcastparser resolves a bare guid against the feed's URL; podfresh keys by the guid as written"
        if have.startswith("http"):
            return "without a guid podfresh keys by the enclosure URL before the link (documented order)"
    if key == "episode.link" and have is None and isinstance(want, str):
        ids = [e.get("id") for e in got.get("episodes", [])]
        outright = re.search(r"isPermaLink\s*=\s*[\"']true", source, re.I)
        if not outright and any(i and (want == i or want.endswith("/" + i)) and not i.startswith("http") for i in ids):
            return ("podfresh takes a guid as the link only when it is an http(s) URL, or relative with "
                    "isPermaLink=\"true\" said outright; not a bare word left at the default")
    if key == "episode.enclosures" and want and set(map(tuple, want)) == set(map(tuple, have or [])):
        return "podfresh lists each enclosure URL once"
    if key == "feed.episode_count" and have > want:
        return "podcastparser drops items it cannot key or title (no or several enclosure URLs); podfresh keeps them"
    if key == "episode.description" and want == "" and have:
        return "podfresh reads Atom <summary>, podcastparser does not"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin")
    parser.add_argument("--data")
    parser.add_argument("--port", type=int, default=19200)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    verbose = args.verbose
    binary = args.bin or next((p for p in (os.path.join(ROOT, ".build/release/podfresh"),
                                           os.path.join(ROOT, ".build/debug/podfresh")) if os.path.exists(p)), None)
    if binary is None:
        sys.exit("no podfresh binary: build one or pass --bin")
    data = args.data or fetch_data()
    server = serve(data, args.port)
    base = "http://127.0.0.1:%d/" % args.port

    agree = compared = unread = 0
    misses, choices = [], []
    feeds = sorted(glob.glob(os.path.join(data, "*.rss")))
    for path in feeds:
        name = os.path.splitext(os.path.basename(path))[0]
        expected_path = os.path.join(data, name + ".json")
        if not os.path.exists(expected_path) or os.path.exists(os.path.join(data, name + ".param.json")):
            continue  # max_episodes asks podcastparser for a parameter podfresh's parse has no counterpart of
        expected = json.load(open(expected_path))
        source = open(path, encoding="utf-8", errors="replace").read()
        run = subprocess.run([binary, "parse", "--json", base + name + ".rss"], capture_output=True, text=True)
        try:
            got = json.loads(run.stdout.splitlines()[0])
        except (IndexError, json.JSONDecodeError):
            misses.append("%s: no document (exit %d: %s)" % (name, run.returncode, run.stderr.strip()[:200]))
            compared += 1
            continue
        for key, want, have, agrees in compare_feed(expected, got, base, name):
            if agrees is None:
                unread += 1
                continue
            compared += 1
            if agrees:
                agree += 1
                continue
            line = "%s %s: podcastparser %s, podfresh %s" % (name, key, json.dumps(want)[:120], json.dumps(have)[:120])
            reason = deliberate(name, key, want, have, expected, got, source)
            if reason:
                choices.append((reason, line))
            else:
                misses.append(line)
    server.shutdown()
    print("podcastparser suite (%s, %d feeds): %d of %d keys agree, %.1f%%; leaving out the %d documented "
          "differences of choice, %d of %d, %.1f%% (%d keys podfresh does not read are not counted)"
          % (PODCASTPARSER, len(feeds), agree, compared, 100.0 * agree / compared, len(choices), agree,
             compared - len(choices), 100.0 * agree / (compared - len(choices)), unread))
    for miss in misses:
        print("  miss: " + miss)
    by_reason = {}
    for reason, line in choices:
        by_reason.setdefault(reason, []).append(line)
    for reason, lines in sorted(by_reason.items(), key=lambda item: -len(item[1])):
        print("  choice (%d): %s" % (len(lines), reason))
        if verbose:
            for line in lines:
                print("    " + line)


if __name__ == "__main__":
    main()
