#!/usr/bin/env bash
# e2e (issue 15, item 3): ndd flow. A timestamped JSONL over 3 days (dates in a nested
# field, copies inside and exactly at the edge of the window, one out of time order,
# one late, one undated): the verdict file equals an independent Python oracle of
# paper 003's doc_q over every pair inside the window; a WARC with WARC-Date; the
# tlcs measure; usage errors exit 2 naming the option; the archive controls of ndd run
# (--url-include, --url-exclude and its robots.txt default); --follow on a directory that
# gets files while it runs, stopped by a STOP file, by --idle-exit and by SIGTERM.
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

python3 - "$tmp" <<'EOF'
import calendar, json, random, sys, time
d = sys.argv[1]
r = random.Random(15)
words = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(2, 9))) for _ in range(300)]
def story():
    return " ".join(r.choice(words) for _ in range(r.randint(30, 90))).capitalize() + "."
def edit(t, k):
    w = t.split(" ")
    for _ in range(k):
        w.insert(r.randrange(len(w)), r.choice(words))
    return " ".join(w)
T0 = calendar.timegm((2012, 3, 1, 0, 0, 0))
iso = lambda t: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
docs, t = [], T0
for i in range(120):
    t += r.randint(0, 2400)
    if docs and r.random() < 0.45:
        txt = edit(r.choice(docs)["text"], r.randint(0, 4))
    else:
        txt = story()
    docs.append({"id": "d%d" % i, "url": "http://s%d/p" % (i % 7), "meta": {"ts": iso(t)}, "text": txt, "_t": t})
# the edge: an exact copy of d0 exactly one window (24 h) after it, and one a second inside
docs.append({"id": "edge", "url": "", "meta": {"ts": iso(docs[0]["_t"] + 86400)}, "text": docs[0]["text"],
             "_t": docs[0]["_t"] + 86400})
docs.append({"id": "inside", "url": "", "meta": {"ts": iso(docs[1]["_t"] + 86399)}, "text": docs[1]["text"],
             "_t": docs[1]["_t"] + 86399})
docs.sort(key=lambda x: x["_t"])
clock = max(x["_t"] for x in docs)
# out of time order (30 min behind, accepted), late (2 h behind, not compared), undated
docs.append({"id": "ooo", "url": "", "meta": {"ts": iso(clock - 1800)}, "text": docs[-3]["text"], "_t": clock - 1800})
docs.append({"id": "late", "url": "", "meta": {"ts": iso(clock - 7200)}, "text": docs[-3]["text"], "_t": clock - 7200})
docs.append({"id": "nodate", "url": "", "text": docs[-3]["text"]})
with open(d + "/s.jsonl", "w") as f:
    for x in docs:
        f.write(json.dumps({k: v for k, v in x.items() if k != "_t"}) + "\n")

def grams(s, q=4):
    w = "".join(c for c in s if c.isascii() and c.isalnum())
    return {w[i:i + q] for i in range(len(w) - q + 1)}
W, LATE = 86400, 3600
out, acc, clock = ["id\turl\tdate\tverdict\tof_id\tscore"], [], None
for x in docs:
    date = x.get("meta", {}).get("ts", "")
    if "_t" not in x:
        out.append("%s\t%s\t%s\tundated\t\t" % (x["id"], x["url"], date)); continue
    t = x["_t"]
    if clock is not None and t < clock - LATE:
        out.append("%s\t%s\t%s\tlate\t\t" % (x["id"], x["url"], date)); continue
    clock = t if clock is None else max(clock, t)
    g, best = grams(x["text"]), None
    for a in acc:  # every earlier accepted document inside the window, none outside
        if abs(t - a["_t"]) >= W:
            continue
        ga = a["_g"]
        m = max(len(g), len(ga))
        s = len(g & ga) / m if m else 0.0
        if s >= 0.8 and (best is None or s > best[0]):
            best = (s, a["id"])
    x["_g"] = g
    acc.append(x)
    if best:
        out.append("%s\t%s\t%s\tnear-duplicate\t%s\t%.6f" % (x["id"], x["url"], date, best[1], best[0]))
    else:
        out.append("%s\t%s\t%s\tnew\t\t" % (x["id"], x["url"], date))
open(d + "/want.tsv", "w").write("\n".join(out) + "\n")
EOF
[ -s "$tmp/want.tsv" ] || fail "the generator wrote nothing"

# --- JSONL: verdicts equal the oracle; the stats JSON
"$NDD" flow --date-field meta.ts --out "$tmp/v.tsv" --stats "$tmp/st.json" "$tmp/s.jsonl" 2>"$tmp/err" ||
  fail "ndd flow: exit $?: $(cat "$tmp/err")"
diff "$tmp/want.tsv" "$tmp/v.tsv" > "$tmp/diff" || fail "verdicts differ from the oracle: $(head -20 "$tmp/diff")"
n=$(grep -c $'\tnear-duplicate\t' "$tmp/v.tsv")
[ "$n" -ge 20 ] || fail "only $n near-duplicates: the corpus does not exercise the detector"
! grep -q $'^edge\t[^\t]*\t[^\t]*\tnear-duplicate\td0\t' "$tmp/v.tsv" || fail "edge matched d0, one window before it"
grep -q $'^inside\t.*\tnear-duplicate\t' "$tmp/v.tsv" || fail "inside (1 s within the window) not matched"
grep -q $'^late\t.*\tlate\t' "$tmp/v.tsv" || fail "no late verdict"
grep -q $'^nodate\t\t\tundated\t' "$tmp/v.tsv" || fail "no undated verdict"
python3 - "$tmp/st.json" <<'EOF' || fail "stats JSON"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["documents"] == 125 and s["late"] == 1 and s["undated"] == 1 and s["out_of_order"] >= 1, s
assert s["segments_dropped"] > 0 and s["segments_held_max"] <= 24 + 1 + 1, s
assert s["segment_bytes_max"] > 0 and s["documents_per_s"] > 0, s
EOF
grep -q "documents/s" "$tmp/err" || fail "no summary on stderr"
"$NDD" flow -q --date-field meta.ts "$tmp/s.jsonl" > "$tmp/v2.tsv" 2>"$tmp/err2" || fail "--out - : exit $?"
cmp -s "$tmp/v.tsv" "$tmp/v2.tsv" || fail "--out - differs from --out FILE"
[ ! -s "$tmp/err2" ] || fail "-q printed: $(cat "$tmp/err2")"
"$NDD" flow -q --index bitmap --date-field meta.ts --out "$tmp/vb.tsv" "$tmp/s.jsonl" || fail "--index bitmap: exit $?"
cmp -s "$tmp/v.tsv" "$tmp/vb.tsv" || fail "--index bitmap (the paper's bitmaps) gives other verdicts"

# --- tlcs on the same stream: the exact copies are found
"$NDD" flow -q --measure tlcs --date-field meta.ts --out "$tmp/t.tsv" "$tmp/s.jsonl" || fail "tlcs: exit $?"
grep -q $'^inside\t.*\tnear-duplicate\t' "$tmp/t.tsv" || fail "tlcs: inside not matched"
[ "$(grep -c $'\tnear-duplicate\t' "$tmp/t.tsv")" -ge 15 ] || fail "tlcs: too few near-duplicates"

# --- WARC with WARC-Date: a copy 25 h later is new, a second copy 1 h after that matches it
python3 - "$tmp" <<'EOF'
import sys
d = sys.argv[1]
html = "<html><body><p>" + " ".join("word%d" % (i * 7 % 31) for i in range(200)) + "</p></body></html>"
def rec(rid, date):
    block = ("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + html).encode()
    h = ("WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:%s>\r\nWARC-Target-URI: http://w/%s\r\n"
         "WARC-Date: %s\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
         % (rid, rid, date, len(block))).encode()
    return h + block + b"\r\n\r\n"
open(d + "/w.warc", "wb").write(rec("r1", "2012-03-01T10:00:00Z") + rec("r2", "2012-03-02T11:00:00Z") +
                                rec("r3", "2012-03-02T12:00:00Z"))
EOF
"$NDD" flow -q --out "$tmp/w.tsv" "$tmp/w.warc" || fail "warc: exit $?"
[ "$(cut -f1,4,5 "$tmp/w.tsv" | tail -n +2 | tr '\t\n' ' |')" = "urn:r1 new |urn:r2 new |urn:r3 near-duplicate urn:r2|" ] ||
  fail "warc verdicts: $(cat "$tmp/w.tsv")"
"$NDD" flow -q --window 30h --out "$tmp/w30.tsv" "$tmp/w.warc" || fail "warc 30h: exit $?"
[ "$(cut -f4,5 "$tmp/w30.tsv" | sed -n 3p)" = $'near-duplicate\turn:r1' ] || fail "--window 30h: r2 not matched with r1"

# --- usage errors: exit 2, the option named
usage() { # expected-text args...
  local want=$1; shift
  "$NDD" flow "$@" >/dev/null 2>"$tmp/u"; local rc=$?
  [ $rc -eq 2 ] || fail "ndd flow $*: exit $rc, want 2"
  grep -q -- "$want" "$tmp/u" || fail "ndd flow $*: message lacks '$want': $(cat "$tmp/u")"
}
usage "--window" --window 24 "$tmp/s.jsonl"
usage "--window" --window 0h "$tmp/s.jsonl"
usage "--max-late" --max-late 1x "$tmp/s.jsonl"
usage "--measure" --measure cosine "$tmp/s.jsonl"
usage "--q" --q 0 "$tmp/s.jsonl"
usage "--index" --index trie "$tmp/s.jsonl"
usage "--threshold" --threshold 0 "$tmp/s.jsonl"
usage "--threshold" --threshold 1.5 "$tmp/s.jsonl"
usage "--candidate-min" --candidate-min 0.3 "$tmp/s.jsonl"
usage "--follow" --follow "$tmp/nonexistent"
usage "--follow" --idle-exit 3 "$tmp/s.jsonl"
usage "no INPUT"
usage "--url-include" --url-include "$(printf 'a\nb')" "$tmp/s.jsonl"
usage "--content-types" --content-types "" "$tmp/s.jsonl"

# --- archive controls, as ndd run: --url-include keeps the matching URLs (and documents
# without one); robots.txt is excluded by default, --url-exclude none reads it
"$NDD" flow -q --date-field meta.ts --url-include 'http://s1/*' --out "$tmp/inc.tsv" --stats "$tmp/inc.json" \
  "$tmp/s.jsonl" || fail "--url-include: exit $?"
python3 - "$tmp/s.jsonl" "$tmp/inc.tsv" "$tmp/inc.json" <<'EOF' || fail "--url-include: wrong documents"
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1])]
want = [d["id"] for d in docs if not d["url"] or d["url"].startswith("http://s1/")]
got = [l.split("\t")[0] for l in open(sys.argv[2]).read().splitlines()[1:]]
assert got == want, (len(got), len(want))
st = json.load(open(sys.argv[3]))
assert st["not_selected"] == len(docs) - len(want), st["not_selected"]
EOF
printf '%s\n' '{"id":"r","url":"http://s1/robots.txt","date":"2012-03-01","text":"User-agent: * Disallow: /private now."}' \
  '{"id":"p","url":"http://s1/p","date":"2012-03-01","text":"A page of its own with words."}' >"$tmp/robots.jsonl"
"$NDD" flow -q --out "$tmp/r1.tsv" "$tmp/robots.jsonl" || fail "robots: exit $?"
[ "$(cut -f1 "$tmp/r1.tsv" | tail -n +2 | tr '\n' ' ')" = "p " ] || fail "robots.txt not excluded by default"
"$NDD" flow -q --url-exclude none --out "$tmp/r2.tsv" "$tmp/robots.jsonl" || fail "--url-exclude none: exit $?"
# a date written as a number (seconds, or milliseconds) is a time, not undated
printf '%s\n' '{"id":"e1","date":1330560000,"text":"Epoch dated words here and more words."}' \
  '{"id":"e2","date":1330563600000,"text":"Epoch dated words here and more words."}' >"$tmp/epoch.jsonl"
"$NDD" flow -q --out "$tmp/e.tsv" "$tmp/epoch.jsonl" || fail "epoch dates: exit $?"
[ "$(cut -f1,3,4,5 "$tmp/e.tsv" | tail -n +2 | tr '\t\n' ',;')" = \
  "e1,2012-03-01T00:00:00Z,new,;e2,2012-03-01T01:00:00Z,near-duplicate,e1;" ] || fail "epoch dates: $(cat "$tmp/e.tsv")"
[ "$(cut -f1 "$tmp/r2.tsv" | tail -n +2 | tr '\n' ' ')" = "r p " ] || fail "--url-exclude none: $(cat "$tmp/r2.tsv")"
usage "unknown option" --bogus "$tmp/s.jsonl"
usage "needs a value" "$tmp/s.jsonl" --window
"$NDD" flow "$tmp/missing.jsonl" >/dev/null 2>"$tmp/u"; [ $? -eq 1 ] || fail "a missing input: want exit 1"
"$NDD" flow --help | grep -q -- "--follow DIR" || fail "--help lacks --follow"

# --- --follow: files arrive while it runs; a STOP file ends it
mkdir "$tmp/in"
head -n 60 "$tmp/s.jsonl" > "$tmp/part1"; tail -n +61 "$tmp/s.jsonl" > "$tmp/part2"
"$NDD" flow --follow "$tmp/in" --poll 0.1 --date-field meta.ts --out "$tmp/f.tsv" 2>"$tmp/ferr" &
pid=$!
waitlines() { # file n: wait up to 20 s until it has n lines
  for _ in $(seq 200); do [ -f "$1" ] && [ "$(wc -l < "$1")" -ge "$2" ] && return 0; sleep 0.1; done
  return 1
}
cp "$tmp/part1" "$tmp/in/001.jsonl.tmp" && mv "$tmp/in/001.jsonl.tmp" "$tmp/in/001.jsonl"
waitlines "$tmp/f.tsv" 61 || fail "--follow: the first file's verdicts did not come: $(cat "$tmp/ferr")"
kill -0 $pid 2>/dev/null || fail "--follow ended before STOP"
cp "$tmp/part2" "$tmp/in/002.jsonl.part" && mv "$tmp/in/002.jsonl.part" "$tmp/in/002.jsonl"
waitlines "$tmp/f.tsv" 126 || fail "--follow: the second file's verdicts did not come"
touch "$tmp/in/STOP"
for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
kill -0 $pid 2>/dev/null && fail "--follow did not stop on STOP"
wait $pid; rc=$?; pid=
[ $rc -eq 0 ] || fail "--follow: exit $rc: $(cat "$tmp/ferr")"
cmp -s "$tmp/f.tsv" "$tmp/want.tsv" || fail "--follow verdicts differ from the oracle (state across files)"
grep -q "stopped by STOP file" "$tmp/ferr" || fail "--follow: summary does not say why it stopped"

# --idle-exit on a quiet directory; SIGTERM
mkdir "$tmp/quiet"
s=$(date +%s)
"$NDD" flow -q --follow "$tmp/quiet" --poll 0.1 --idle-exit 1 --out /dev/null || fail "--idle-exit: exit $?"
[ $(( $(date +%s) - s )) -le 10 ] || fail "--idle-exit 1 took too long"
"$NDD" flow --follow "$tmp/quiet" --poll 0.1 --out "$tmp/sig.tsv" 2>"$tmp/serr" &
pid=$!
waitlines "$tmp/sig.tsv" 1 || fail "SIGTERM: no header line" # written after the handlers are set
kill -TERM $pid
wait $pid; rc=$?; pid=
[ $rc -eq 0 ] || fail "SIGTERM: exit $rc"
grep -q "stopped by SIGTERM" "$tmp/serr" || fail "SIGTERM: no summary: $(cat "$tmp/serr")"
echo "flow_cli ok"
