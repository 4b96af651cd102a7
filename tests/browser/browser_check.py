#!/usr/bin/env python3
"""Browser checks of the model workbench and of a run's HTML page, in headless Chromium driven over the DevTools protocol
(--remote-debugging-pipe: JSON messages on fds 3 and 4, no other dependency).

  prepare  REFERENCE_TOOL REFCHECK DATA WORK   the painter-order frames (workbench_reference) and
                                               the sites of their records (refcheck workbench)
  compare  WORK [--depth plane|interpolated] [--expect-fail]
           every view of WORK/reference.json drawn by the workbench (check.html) and compared
           pixel for pixel with the reimplementation's painter-order frame
  console  SITE [RECORDS...]                   index.html and record pages open with no console error
  report   REFCHECK DATA CASE OUT IMAGE OBJDUMP [--filter P]
                                               a run with a seeded fault (op_secondary's jns made js,
                                               found by OBJDUMP in IMAGE), its HTML page at 1280 x 800: the seeded-fault
                                               banner and the first divergence on the first screen,
                                               every picture loaded, nothing wider than the window

The page draws in the engine's mode: the engine's own integer screen vertices (wb.screen) and its
polygon rules for coverage, u, v and level (wb.raster), so what remains to compare is depth.
Tolerance (wb.check.tolerance, docs/formats/apache-3d.md): a differing pixel is accepted
  1. on a boundary displaced by at most one pixel: the browser's colour occurs among the painter
     frame's 3 x 3 neighbours of that pixel and the painter frame's among the browser's;
  2. within one pixel of a pixel a point or line of the engine wrote (GL has its own line rule);
  3. at a silhouette edge: within 2 pixels of a boundary between surfaces of different planes in the
     painter frame (workbench_reference's "silhouettes"), when the browser's colour is one the engine
     wrote at that pixel or occurs among the painter frame's 3 x 3 neighbours.
Within one plane only rule 1 applies. Pixels a glass or haze remap wrote, and their neighbours, are
not compared (the workbench previews remaps with transparency). Anything else is unexplained; a
view passes with no unexplained pixel, its screen vertices equal to the engine's and the faces it
drew those the engine drew, in order. Exit 77 (skipped) when Chromium is not installed.
"""
import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile

W, H = 320, 200
SKIP = 77


def find_chromium():
    for name in (os.environ.get("REFCHECK_CHROMIUM"), "chromium", "chromium-browser"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


class Browser:
    """One headless Chromium, one page, spoken to over the DevTools pipe."""

    def __init__(self, chromium):
        self.profile = tempfile.mkdtemp(prefix="refcheck-chromium-")
        to_child, self.write_fd = os.pipe()
        self.read_fd, from_child = os.pipe()

        def fds():  # the child reads commands on fd 3 and writes replies on fd 4
            a, b = os.dup(to_child), os.dup(from_child)  # neither may already be 3 or 4
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [chromium, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--no-first-run",
                "--no-default-browser-check", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
                "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                "--user-data-dir=" + self.profile, "about:blank"]
        self.proc = subprocess.Popen(args, preexec_fn=fds, close_fds=False, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        os.close(to_child)
        os.close(from_child)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            self.call(domain + ".enable", session=True)

    def send(self, method, params=None, session=False):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        return self.next_id

    def receive(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.read_fd, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe (exit %s)" % self.proc.poll())
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=False):
        wanted = self.send(method, params, session)
        while True:
            m = self.receive()
            if m.get("id") == wanted:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method):
        for i, m in enumerate(self.events):
            if m.get("method") == method:
                return self.events.pop(i)
        while True:
            m = self.receive()
            if m.get("method") == method:
                return m
            self.events.append(m)

    def evaluate(self, expression):
        r = self.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True},
                      session=True)
        if "exceptionDetails" in r:
            raise RuntimeError("page: " + json.dumps(r["exceptionDetails"])[:2000])
        return r["result"].get("value")

    def open(self, url):
        """Navigates and waits for the page's WB_READY (set when it has drawn)."""
        self.events = [m for m in self.events if m.get("method") != "Page.loadEventFired"]
        self.call("Page.navigate", {"url": url}, session=True)
        self.wait_event("Page.loadEventFired")
        return self.evaluate("new Promise((resolve, reject) => { const t = () => window.WB_READY ? resolve(true)"
                             " : (window.WB_FAILED ? reject(new Error(window.WB_FAILED)) : setTimeout(t, 20)); t(); })")

    def console_errors(self):
        errors = []
        for m in self.events:
            method, p = m.get("method"), m.get("params", {})
            if method == "Runtime.exceptionThrown":
                errors.append(json.dumps(p.get("exceptionDetails", {}))[:500])
            elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                errors.append(" ".join(str(a.get("value", a.get("description"))) for a in p.get("args", [])))
            elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                errors.append(p["entry"].get("text", "") + " " + p["entry"].get("url", ""))
        return errors

    def close(self):
        try:
            self.send("Browser.close")
            self.proc.wait()
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            shutil.rmtree(self.profile, ignore_errors=True)


def start_browser():
    chromium = find_chromium()
    if not chromium:
        print("SKIP: Chromium not found (scripts/setup.sh installs the Debian package chromium)")
        sys.exit(SKIP)
    return Browser(chromium)


def compare_frames(reference, remapped, lines, silhouettes, browser, palette):
    ref = [palette[i] for i in reference]
    got = [(browser[4 * i] << 16) | (browser[4 * i + 1] << 8) | browser[4 * i + 2] for i in range(W * H)]

    def neighbours(img, x, y):
        return {img[yy * W + xx] for yy in range(max(0, y - 1), min(H, y + 2)) for xx in range(max(0, x - 1), min(W, x + 2))}

    excluded = set()
    for i, m in enumerate(remapped):
        if m:
            x, y = i % W, i // W
            excluded.update(yy * W + xx for yy in range(max(0, y - 1), min(H, y + 2)) for xx in range(max(0, x - 1), min(W, x + 2)))
    silhouette = set()  # the pixels the engine's points and lines wrote, and their neighbours
    for i, m in enumerate(lines):
        if m:
            x, y = i % W, i // W
            silhouette.update(yy * W + xx for yy in range(max(0, y - 1), min(H, y + 2)) for xx in range(max(0, x - 1), min(W, x + 2)))
    # Silhouette pixels (workbench_reference): the colours the engine wrote there, face by face.
    written = {e[0]: {palette[c] for c in e[1:]} for e in silhouettes}
    differing = edge = at_silhouette = 0
    unexplained = []
    for i in range(W * H):
        if ref[i] == got[i] or i in excluded:
            continue
        differing += 1
        x, y = i % W, i // W
        if i in silhouette or (got[i] in neighbours(ref, x, y) and ref[i] in neighbours(got, x, y)):
            edge += 1
        elif i in written and (got[i] in written[i] or got[i] in neighbours(ref, x, y)):
            at_silhouette += 1
        else:
            unexplained.append((x, y))
    return {"differing": differing, "at_edges": edge, "at_silhouettes": at_silhouette, "unexplained": len(unexplained),
            "first_unexplained": unexplained[:5], "excluded_remap": len(excluded), "_where": unexplained}


def write_png(path, rgb_rows):
    import struct
    import zlib
    raw = b"".join(b"\0" + bytes(row) for row in rgb_rows)
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def cmd_prepare(a):
    os.makedirs(a.work, exist_ok=True)
    subprocess.run([a.reference_tool, a.data, a.work], check=True)
    with open(os.path.join(a.work, "reference.json")) as f:
        records = ",".join(str(r) for r in json.load(f)["records"])
    for site, data in (("default", a.data), ("reversed", os.path.join(a.work, "reversed"))):
        subprocess.run([a.refcheck, "workbench", "--data", data, "--records", records, "--out",
                        os.path.join(a.work, "site-" + site)], check=True)
    return 0


def cmd_compare(a):
    with open(os.path.join(a.work, "reference.json")) as f:
        ref = json.load(f)
    pal = base64.b64decode(ref["palette"])
    palette = [(pal[3 * i] << 16) | (pal[3 * i + 1] << 8) | pal[3 * i + 2] for i in range(256)]
    browser = start_browser()
    results = []
    try:
        opened, info = None, None
        for v in ref["views"]:
            site = os.path.abspath(os.path.join(a.work, "site-" + v["site"]))
            if opened != site:
                browser.open("file://" + site + "/check.html")
                opened = site
                info = browser.evaluate("WB_CHECK.info()")
                if info["depth_bits"] < 24:
                    raise RuntimeError("the WebGL depth buffer has %s bits, not 24" % info["depth_bits"])
            view = {k: v[k] for k in ("record", "state", "placement", "camera", "light")}
            view["depth"] = a.depth
            pixels = base64.b64decode(browser.evaluate("WB_CHECK.render(%s)" % json.dumps(view)))
            order = browser.evaluate("WB_CHECK.order()")
            r = compare_frames(base64.b64decode(v["frame"]), base64.b64decode(v["remapped"]),
                               base64.b64decode(v["lines"]), v["silhouettes"], pixels, palette)
            r.update({k: v[k] for k in ("name", "group", "site", "record", "coplanar_faces", "drawn_pixels")})
            # wb.screen: the viewer's screen vertices must be the engine's, every one.
            got = browser.evaluate("WB_CHECK.screen(%s, %s)" % (json.dumps(view), json.dumps(v["screen"])))
            r["screen_vertices"] = len(v["screen"])
            r["screen_mismatches"] = sum(1 for a, b in zip(got, v["screen"]) if a != b)
            # wb.walk: the viewer draws the faces the engine drew, in the engine's order.
            r["faces_drawn"] = len(v["order"])
            r["order_differs"] = order != v["order"]
            r["passed"] = r["unexplained"] == 0 and r["screen_mismatches"] == 0 and not r["order_differs"]
            results.append(r)
            if not r["passed"] and a.pictures:
                stem = os.path.join(a.work, "fail-%s-%d" % (a.depth, len(results)))
                write_png(stem + "-browser.png", [[pixels[4 * (y * W + x) + c] for x in range(W) for c in range(3)] for y in range(H)])
                fr = base64.b64decode(v["frame"])
                write_png(stem + "-painter.png", [[pal[3 * fr[y * W + x] + c] for x in range(W) for c in range(3)] for y in range(H)])
                bad = set(r["_where"])
                write_png(stem + "-unexplained.png", [[(255 if (x, y) in bad else pal[3 * fr[y * W + x] + c] // 3) if c == 0 else
                                                       (0 if (x, y) in bad else pal[3 * fr[y * W + x] + c] // 3)
                                                       for x in range(W) for c in range(3)] for y in range(H)])
            del r["_where"]
        errors = browser.console_errors()
    finally:
        browser.close()
    coplanar = [r for r in results if r["group"] == "coplanar" and r["coplanar_faces"] > 0 and r["drawn_pixels"] > 0]
    summary = {
        "depth": a.depth,
        "webgl": info,
        "tolerance": "a differing pixel is accepted (1) when the browser's colour occurs among the painter frame's "
                     "3x3 neighbours and the painter frame's among the browser's (a boundary moved by at most one "
                     "pixel), (2) within one pixel of a pixel an engine point or line wrote, (3) at a silhouette "
                     "edge (within 2 pixels of a boundary between different planes in the painter frame) when the "
                     "browser's colour is one the engine wrote there or occurs among its 3x3 neighbours; remap "
                     "pixels and their neighbours are not compared",
        "views": len(results),
        "coplanar_views": sum(1 for r in coplanar if r["passed"]),
        "coplanar_views_failed": sum(1 for r in coplanar if not r["passed"]),
        "other_views_failed": sum(1 for r in results if not r["passed"] and r not in coplanar),
        "console_errors": errors,
        "results": results,
    }
    summary["unexplained_pixels"] = sum(r["unexplained"] for r in results)
    summary["unexplained_in_coplanar_views"] = sum(r["unexplained"] for r in coplanar)
    with open(os.path.join(a.work, "results-%s.json" % a.depth), "w") as f:
        json.dump(summary, f, indent=1)
    for r in results:
        print("%-4s %-10s %-28s record %4d: %5d differing, %5d at edges, %4d unexplained%s" % (
            "ok" if r["passed"] else "FAIL", r["group"], r["name"][:28], r["record"], r["differing"], r["at_edges"],
            r["unexplained"], "" if r["passed"] else " first at %s" % r["first_unexplained"][:2]))
    print(json.dumps({k: summary[k] for k in ("depth", "views", "coplanar_views", "coplanar_views_failed",
                                              "other_views_failed", "unexplained_pixels",
                                              "unexplained_in_coplanar_views")}))
    if errors:
        print("console errors:", *errors, sep="\n  ")
        return 1
    if a.expect_fail:
        # The seeded fault: ordinary interpolated depth must make the coplanar checks fail.
        # Clearly: at least half of the coplanar views fail (all 36 do when this was written).
        caught = summary["coplanar_views_failed"] > 0 and 2 * summary["coplanar_views_failed"] >= len(coplanar)
        print("seeded depth fault", "caught" if caught else "NOT caught", "in %d coplanar views" % summary["coplanar_views_failed"])
        return 0 if caught else 1
    ok = summary["coplanar_views"] >= 36 and summary["coplanar_views_failed"] == 0 and summary["other_views_failed"] == 0
    return 0 if ok else 1


def cmd_console(a):
    site = os.path.abspath(a.site)
    browser = start_browser()
    try:
        browser.open("file://" + site + "/index.html")
        shown = browser.evaluate("document.querySelectorAll('.card').length")
        records = a.records or browser.evaluate("WB_INDEX.records.filter(r => !r.error).map(r => r.record)")
        pages = records[: a.pages] if a.pages else records
        for r in pages:
            browser.open("file://%s/record.html?r=%d&faces=0" % (site, r))
            face = browser.evaluate("(() => { const c = document.getElementById('view');"
                                    " c.dispatchEvent(new MouseEvent('click', {clientX: c.getBoundingClientRect().left"
                                    " + c.width / 2, clientY: c.getBoundingClientRect().top + c.height / 2}));"
                                    " return WB.lastClick.then(() => document.getElementById('face').textContent); })()")
            if not face:
                raise RuntimeError("record %d: the face panel stayed empty" % r)
        # A report's link names the 3DOBJS.BIN its run read: the site's own shows no warning, another
        # one (the seeded mismatch) shows the OTHER ARCHIVES warning.
        own = browser.evaluate("WB_INDEX.archives['3DDATA/3DOBJS.BIN']")
        mismatch = {}
        for label, objs in (("own", own), ("other", "0" * 64)):
            browser.open("file://%s/record.html?r=%d&objs=%s" % (site, pages[0], objs))
            mismatch[label] = browser.evaluate("(() => { const m = document.getElementById('mismatch');"
                                               " return m.hidden ? '' : m.textContent; })()")
        if mismatch["own"] or "OTHER ARCHIVES" not in mismatch["other"]:
            raise RuntimeError("the archive check of record.html: %s" % json.dumps(mismatch))
        # Every record's data loads and draws (check.html renders its opening view).
        browser.open("file://" + site + "/check.html")
        drawn = browser.evaluate("(async () => { let n = 0; for (const r of %s) { const rec = await WB.loadRecord(r);"
                                 " await WB_CHECK.render({record: r, state: 0, placement: [0, 0, 0], camera: rec.view.camera,"
                                 " light: rec.view.light}); ++n; } return n; })()" % json.dumps(records))
        errors = browser.console_errors()
    finally:
        browser.close()
    print(json.dumps({"index_cards": shown, "record_pages": len(pages), "records_drawn": drawn,
                      "archive_mismatch_shown": bool(mismatch["other"]), "console_errors": errors}))
    return 0 if not errors and drawn == len(records) else 1


def winding_patch(objdump, image):
    """--patch for the seeded fault the CLI tests use: op_secondary's first jns made js (0x78), found
    in the stand-in's disassembly (its COFF symbols), so no offset is hard-coded."""
    text = subprocess.run([objdump, "-d", image], stdout=subprocess.PIPE, check=True, text=True).stdout
    inside = False
    for line in text.splitlines():
        if line.endswith("<_op_secondary>:") or line.endswith("<op_secondary>:"):
            inside = True
        elif inside and not line.strip():
            break
        elif inside and "\tjns " in line:
            return "0x%08x:78" % int(line.split(":")[0], 16)
    raise RuntimeError("no jns in op_secondary of " + image)


def cmd_report(a):
    """A divergent run with a seeded fault, its page opened at 1280 x 800: the seeded-fault banner and
    the first divergence are on the first screen, and every picture loads."""
    out = os.path.abspath(a.out)
    shutil.rmtree(out, ignore_errors=True)
    run = subprocess.run([a.refcheck, "run", a.case, "--data", a.data, "--out", out, "--jobs", "1",
                          "--patch", winding_patch(a.objdump, a.image)] + (["--filter", a.filter] if a.filter else []),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if run.returncode != 1:
        print(run.stdout)
        raise RuntimeError("the seeded run should be divergent (exit 1), not %d" % run.returncode)
    browser = start_browser()
    try:
        browser.call("Emulation.setDeviceMetricsOverride",
                     {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False}, session=True)
        browser.events = [m for m in browser.events if m.get("method") != "Page.loadEventFired"]
        browser.call("Page.navigate", {"url": "file://" + out + "/index.html"}, session=True)
        browser.wait_event("Page.loadEventFired")
        seen = browser.evaluate("""(() => {
            const top = sel => { const e = document.querySelector(sel); return e ? e.getBoundingClientRect().top : null; };
            const bottom = sel => { const e = document.querySelector(sel); return e ? e.getBoundingClientRect().bottom : null; };
            const imgs = [...document.images];
            return {screen: window.innerHeight, banner_top: top('#seeded-faults'), banner_bottom: bottom('#seeded-faults'),
                    divergence_top: top('.first .headline'), divergence_bottom: bottom('.first .headline'),
                    images: imgs.length, broken: imgs.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src),
                    page_width: document.documentElement.scrollWidth};
        })()""")
        errors = browser.console_errors()
    finally:
        browser.close()
    print(json.dumps(seen))
    problems = []
    for what in ("banner", "divergence"):
        if seen[what + "_top"] is None:
            problems.append("no " + what + " on the page")
        elif seen[what + "_bottom"] > seen["screen"]:
            problems.append("the %s ends at y = %d, below the first screen (%d px)" % (what, seen[what + "_bottom"], seen["screen"]))
    if seen["images"] == 0:
        problems.append("no picture on the page (the seeded run's frames differ)")
    if seen["broken"]:
        problems.append("pictures that did not load: " + ", ".join(seen["broken"][:5]))
    if seen["page_width"] > 1280:
        problems.append("the page is %d px wide at a 1280 px window" % seen["page_width"])
    problems += ["console: " + e for e in errors]
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("prepare")
    for name in ("reference_tool", "refcheck", "data", "work"):
        s.add_argument(name)
    s = sub.add_parser("compare")
    s.add_argument("work")
    s.add_argument("--depth", choices=("plane", "interpolated"), default="plane")
    s.add_argument("--expect-fail", action="store_true")
    s.add_argument("--pictures", action="store_true", help="write PNGs of failing views")
    s = sub.add_parser("console")
    s.add_argument("site")
    s.add_argument("records", nargs="*", type=int)
    s.add_argument("--pages", type=int, default=0, help="open only the first N record pages")
    s = sub.add_parser("report")
    for name in ("refcheck", "data", "case", "out", "image", "objdump"):
        s.add_argument(name)
    s.add_argument("--filter", default="")
    a = p.parse_args()
    return {"prepare": cmd_prepare, "compare": cmd_compare, "console": cmd_console, "report": cmd_report}[a.command](a)


if __name__ == "__main__":
    sys.exit(main())
