#!/usr/bin/env bash
# e2e: 'ndd stats DIR --plot OUT.html' on a real run. The page is self-contained
# (no URL it would fetch: no src/href/url()/@import, no http(s) except the SVG
# namespace name). Opened in headless Chromium (Debian package chromium; skip when
# absent): the script reports 3 charts drawn and no error, and each chart holds
# exactly as many bars as the data has non-empty bins (counted here from the
# --json output); a screenshot, decoded here (zlib PNG decoder in Python), shows
# the bar colours of all three charts: the charts really render.
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
SRC=${NDD_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# ndd stats uses no MPI: keep LeakSanitizer on for it even where the MPI runs turn it off
stats() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1" "$NDD" stats "$@"; }

stats "$tmp" --plot 2>/dev/null; [ $? -eq 2 ] || fail "--plot without a file must exit 2"

src=reuters
[ -d "${NDD_DATASETS:-/nonexistent}/reuters21578" ] || { src=builtin; echo "note: datasets absent, demo articles"; }
python3 "$SRC/datasets/gencrawl.py" --source $src --size 2MB --seed 9 --measure 50 -q -o "$tmp/c" || fail "gencrawl failed"
mpirun -n 2 "$NDD" run -q -o "$tmp/o" "$tmp"/c/crawl-* || fail "ndd run failed"
stats "$tmp/o" --plot "$tmp/page.html" >"$tmp/report" || fail "ndd stats --plot exit $?"
stats "$tmp/o" --json >"$tmp/stats.json" || fail "ndd stats --json"
[ -s "$tmp/page.html" ] && [ -s "$tmp/report" ] || fail "no page or no report"
stats "$tmp/o" --plot "$tmp/no-such-dir/page.html" >/dev/null 2>&1; [ $? -eq 1 ] || fail "unwritable --plot must exit 1"

# self-contained: nothing to fetch
if grep -n -i -E '(src|href)=|url\(|@import' "$tmp/page.html"; then fail "the page refers to external resources"; fi
if grep -o -i -E 'https?://[^"'"'"' ]*' "$tmp/page.html" | grep -v -x 'http://www.w3.org/2000/svg'; then
  fail "the page holds URLs"
fi

CHROME=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROME" ] || { echo "SKIP: chromium not installed (scripts/setup.sh installs it)"; exit 77; }
chrome() {
  local ud
  ud=$(mktemp -d "$tmp/chrome.XXXXXX")
  timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$ud" "$@" 2>>"$tmp/chrome.err"
}
chrome --dump-dom "file://$tmp/page.html" >"$tmp/dom.html" || { tail -5 "$tmp/chrome.err"; fail "chromium --dump-dom failed"; }
chrome --hide-scrollbars --window-size=1300,1400 --screenshot="$tmp/shot.png" "file://$tmp/page.html" >/dev/null ||
  { tail -5 "$tmp/chrome.err"; fail "chromium --screenshot failed"; }

python3 - "$tmp/stats.json" "$tmp/dom.html" "$tmp/shot.png" <<'EOF' || fail "rendered page check"
import json, re, struct, sys, zlib
d, dom = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
html = re.search(r"<html[^>]*>", dom).group(0)
e = re.search(r'data-ndd-error="([^"]*)"', html)
if e:
    sys.exit("the chart script failed: " + e.group(1))
m = re.search(r'data-ndd-charts="(\d+)"', html)
if not m or m.group(1) != "3":
    sys.exit("charts drawn: %s, want 3" % (m.group(1) if m else "none (script did not run)"))
def bars(svg_id):
    m = re.search(r'<svg[^>]*id="%s".*?</svg>' % svg_id, dom, re.S)
    if not m:
        sys.exit("no svg #" + svg_id)
    return len(re.findall(r'<rect[^>]*class="bar"', m.group(0)))
sets = d["stats"]["sets"]["size_histogram"]
clusters = d["cluster_sizes"]["size_histogram"]
want = sum(1 for v in sets.values() if v > 0) + sum(1 for v in clusters.values() if v > 0)
assert bars("chart-sets") == want, ("set-size bars", bars("chart-sets"), want)
for m in ("resemblance", "containment"):
    h = d["scores"][m]
    want = sum(1 for v in h["accepted"] + h["rejected"] if v > 0)
    assert bars("chart-scores-" + m) == want, (m, bars("chart-scores-" + m), want)
assert bars("chart-stages") == len(d["stats"]["stage_seconds"]), "stage bars"

# decode the screenshot (8-bit RGB/RGBA, non-interlaced) and count the bar colours
png = open(sys.argv[3], "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(png):
    n, t = struct.unpack(">I4s", png[pos:pos + 8])
    body = png[pos + 8:pos + 8 + n]
    if t == b"IHDR":
        w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        assert depth == 8 and ctype in (2, 6) and not interlace, (depth, ctype, interlace)
        bpp = 3 if ctype == 2 else 4
    elif t == b"IDAT":
        idat += body
    pos += 12 + n
raw, stride = zlib.decompress(idat), w * bpp
prev, counts = bytearray(stride), {}
colours = {(0x44, 0x77, 0xaa): "sets/stages", (0xee, 0x66, 0x77): "clusters", (0x22, 0x88, 0x33): "accepted",
           (0xcc, 0x33, 0x11): "rejected"}
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    if f == 1:
        for i in range(bpp, stride): line[i] = (line[i] + line[i - bpp]) & 255
    elif f == 2:
        for i in range(stride): line[i] = (line[i] + prev[i]) & 255
    elif f == 3:
        for i in range(stride): line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
    elif f == 4:
        for i in range(stride):
            a, b, c = (line[i - bpp] if i >= bpp else 0), prev[i], (prev[i - bpp] if i >= bpp else 0)
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        k = colours.get((line[x], line[x + 1], line[x + 2]))
        if k:
            counts[k] = counts.get(k, 0) + 1
    prev = line
print("screenshot %dx%d, bar-colour pixels: %s" % (w, h, counts))
for k in ("sets/stages", "clusters", "accepted", "rejected"):
    assert counts.get(k, 0) >= 200, "too few %s pixels: the chart did not render" % k
EOF
echo "PASS"
