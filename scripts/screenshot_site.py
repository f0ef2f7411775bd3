#!/usr/bin/env python3
"""Look at every page of the built book in headless Chromium, as a reader sees it.

``scripts/check_site.py`` reads the static HTML. This script opens each page listed
in ``_toc.yml`` in a real browser (Debian's ``/usr/bin/chromium``, driven by the
``playwright`` package; no browser is downloaded), served over
``http://127.0.0.1:<free port>`` from a thread of this script, and for each page:

- waits for the page to load, for MathJax to finish typesetting
  (``MathJax.startup.promise``), for every image and for the web fonts;
- checks that the page's ``<h1>`` is visible;
- checks that every formula was typeset (no raw ``\\(...\\)`` TeX left in a
  ``.math`` element) and that MathJax shows no error: no ``merror`` (a TeX error
  shown in place of the formula), no undefined macro shown in red, no "Math input
  error";
- checks that every ``<img>`` finished loading with a ``naturalWidth`` above 0;
- checks that no uncaught exception and no ``console.error`` happened, except the
  theme's known harmless ones (``KNOWN_HARMLESS``, summed up in one warning each);
- checks that no request to the local server failed or answered HTTP 4xx/5xx;
  requests to any other host are blocked (the build machine has no network and the
  book must not need one) and reported as warnings;
- checks that the page does not scroll sideways in a 1280 px window, and warns
  about tables and formulas wider than the text column and figures shrunk below
  65 % of their width (hard to read, not broken);
- saves ``<out>/<docname>.png`` (the full page) and ``<out>/<docname>.viewport.png``
  (what a 1280x800 window shows first), and checks that neither is blank (Pillow).

Every page is loaded in the same tab as a reader's first visit (storage cleared),
one after the other; the 12 pages of the book take about 26 s on 2 cores.

Without Chromium (or without the ``playwright`` package) it prints one line saying
the screenshots were skipped and exits 0, or 1 with ``--require-browser``. With
problems it prints one line per problem, naming the page, and exits 1; on a clean
site it prints a one-line summary.

Usage::

    python scripts/screenshot_site.py --html _build/html [--out _build/screenshots]
        [--toc _toc.yml] [--chromium /usr/bin/chromium] [--require-browser]
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import functools
import http.server
import shutil
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ipynb_download import toc_docnames  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

DEFAULT_CHROMIUM = "/usr/bin/chromium"
# Flags for a root user on a machine without network, display or GPU. Playwright adds
# --headless and an empty temporary --user-data-dir of its own (deleted on close).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Only the local server is reachable: a request to any other host goes to a proxy on
# a closed local port and fails at once (no name is looked up, nothing leaves the
# machine), and is reported as a warning. Loopback addresses bypass proxies. (A
# playwright route would do the same but turns the browser's cache off, which makes
# every page load its 3 MB of scripts again.)
BLOCK_EXTERNAL_ARGS = [
    "--proxy-server=http://127.0.0.1:9",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
]
VIEWPORT = {"width": 1280, "height": 800}
NAV_TIMEOUT_MS = 30_000
READY_TIMEOUT_MS = 20_000
# MathJax's script is deferred: it has run by the load event, so a MathJax that has
# not started soon after is broken, not slow.
MATHJAX_START_MS = 3_000
# A screenshot whose grey levels vary less than this (standard deviation, 0-255) is
# blank: a rendered page of text and figures is far above it.
BLANK_STDDEV = 2.0
# Console messages that only repeat a failed request, which is reported on its own
# (or is the browser's own /favicon.ico, which the book does not have).
CONSOLE_REQUEST_NOISE = ("Failed to load resource",)
# A figure shown at less than this share of its width has text too small to read.
MIN_FIGURE_SCALE = 0.65

# Errors the theme stack raises on every page that a reader never notices. They are
# summed up in one warning each instead of failing the check. Delete an entry once
# its cause is gone, so that it fails again if it comes back.
KNOWN_HARMLESS = {
    "Identifier 'THEBE_JS_URL' has already been declared": (
        "sphinx-thebe's settings <script> is written twice into every page; the second "
        "copy fails on its first line, the first one has already set the same values"
    ),
    "Got invalid theme mode: . Resetting to auto.": (
        "pydata-sphinx-theme says so on a reader's first visit (no light/dark choice "
        "stored yet) and uses the system's mode"
    ),
}

SKIP_HINT = "install Chromium (apt-get install -y chromium) and the book extra (pip install -e '.[book]')"

# Runs in the page: waits until what a reader sees is complete. Returns notes on
# what did not finish.
READY_JS = """
async ([timeoutMs, startMs]) => {
  const deadline = Date.now() + timeoutMs;
  const left = () => Math.max(0, deadline - Date.now());
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const notes = [];
  // Lazy images would stay empty below the first screen of a full-page shot.
  for (const img of document.images) if (img.loading === "lazy") img.loading = "eager";
  const mathjaxScript = [...document.scripts].some((s) => /mathjax/i.test(s.src || ""));
  const started = () => window.MathJax && MathJax.startup && MathJax.startup.promise;
  if (mathjaxScript || window.MathJax) {
    const startBy = Date.now() + Math.min(startMs, timeoutMs);
    while (!started() && Date.now() < startBy) await sleep(50);
    if (!started()) {
      notes.push("MathJax did not start (its script failed to load or run)");
    } else {
      const done = await Promise.race([
        MathJax.startup.promise.then(() => true, (e) => { notes.push("MathJax failed: " + e); return true; }),
        sleep(left()).then(() => false),
      ]);
      if (!done) notes.push(`MathJax did not finish typesetting within ${timeoutMs / 1000} s`);
    }
  }
  const pending = [...document.images].filter((img) => !img.complete).map((img) =>
    new Promise((r) => { img.addEventListener("load", r, { once: true }); img.addEventListener("error", r, { once: true }); }));
  const imagesDone = await Promise.race([Promise.all(pending).then(() => true), sleep(left()).then(() => false)]);
  if (!imagesDone) notes.push(`images still loading after ${timeoutMs / 1000} s`);
  await Promise.race([document.fonts.ready, sleep(left())]);
  // Two frames so that the last layout is painted before the screenshot.
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  return notes;
}
"""

# Runs in the page once it is ready: what a reader would see as broken.
REPORT_JS = r"""
() => {
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    const shown = el.checkVisibility ? el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }) : true;
    return shown && r.width > 0 && r.height > 0;
  };
  const short = (s) => (s || "").replace(/\s+/g, " ").trim().slice(0, 120);
  const article = document.querySelector("article.bd-article") || document.querySelector("main") || document.body;
  const h1 = article.querySelector("h1");
  // MathJax shows a TeX error in place of the formula (merror), and an undefined
  // macro as its name in red (the noundefined package): read both from the MathML
  // of every typeset formula.
  const mathjaxErrors = [];
  const mj = window.MathJax && MathJax.startup;
  if (mj && mj.document && mj.document.math && typeof mj.toMML === "function") {
    for (const item of Array.from(mj.document.math)) {
      let mml;
      try { mml = mj.toMML(item.root); } catch (e) { mathjaxErrors.push(`unreadable formula ${short(item.math)}: ${e}`); continue; }
      const error = mml.match(/<merror\b[^>]*>/);
      const undefinedMacro = mml.match(/<mtext mathcolor="red">(\\[^<]*)<\/mtext>/);
      const message = error && error[0].match(/data-mjx-error="([^"]*)"/);
      if (error) mathjaxErrors.push(`${message ? message[1] : "error"} in ${short(item.math)}`);
      else if (undefinedMacro) mathjaxErrors.push(`undefined ${undefinedMacro[1]} in ${short(item.math)}`);
    }
  } else {
    for (const el of document.querySelectorAll("mjx-merror")) mathjaxErrors.push(short(el.getAttribute("data-mjx-error") || el.textContent));
  }
  if (document.body.textContent.includes("Math input error")) mathjaxErrors.push("Math input error");
  const rawMath = [...document.querySelectorAll(".math")].filter(
    (el) => !el.querySelector("mjx-container") && !el.closest("mjx-container")).map((el) => short(el.textContent));
  const images = [...document.images].map((img) => ({
    src: img.getAttribute("src") || "",
    url: img.currentSrc || img.src || "",
    complete: img.complete,
    naturalWidth: img.naturalWidth,
    shownWidth: Math.round(img.getBoundingClientRect().width),
  }));
  // Tables and display formulas wider than the column: the reader has to scroll
  // them sideways, and their right part is hidden at first.
  const wide = [...article.querySelectorAll("table, mjx-container[display='true']")].map((el) => {
    let box = el.parentElement;
    while (box && box !== article && getComputedStyle(box).overflowX === "visible") box = box.parentElement;
    const room = box ? box.clientWidth : article.clientWidth;
    const what = el.tagName === "TABLE" ? "table" : "formula";
    return { what, width: Math.ceil(el.scrollWidth || el.getBoundingClientRect().width), room, text: short(el.textContent).slice(0, 60) };
  }).filter((w) => w.width > w.room + 1);
  const scroller = document.scrollingElement || document.documentElement;
  return {
    title: document.title,
    h1: h1 ? { text: short(h1.textContent).replace(/#$/, ""), visible: visible(h1) } : null,
    mathjaxErrors,
    rawMath,
    mathCount: document.querySelectorAll("mjx-container").length,
    images,
    wide,
    scrollWidth: scroller.scrollWidth,
    viewportWidth: window.innerWidth,
    pageHeight: scroller.scrollHeight,
  };
}
"""


# ----------------------------------------------------------------------------------
# Pure parts (tested without a browser in tests/book/test_screenshot_site.py)


def find_chromium(explicit: str | None = None) -> Path | None:
    """The Chromium to run: ``explicit`` if given (None when it is not a file), else
    Debian's ``/usr/bin/chromium`` or a ``chromium`` on PATH.
    """
    if explicit:
        path = Path(explicit)
        return path if path.is_file() else None
    for candidate in (DEFAULT_CHROMIUM, shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def is_local(url: str, origin: str) -> bool:
    """True for a URL the page may load: the local server, or inline data."""
    parts = urlsplit(url)
    if parts.scheme in {"data", "blob", "about"}:
        return True
    return f"{parts.scheme}://{parts.netloc}" == origin


def shot_paths(out: Path, docname: str) -> tuple[Path, Path]:
    """Where the full-page and first-viewport screenshots of ``docname`` go."""
    full = out / f"{docname}.png"
    return full, full.with_name(f"{Path(docname).name}.viewport.png")


def blank_reason(png: Path, threshold: float = BLANK_STDDEV) -> str | None:
    """Why the image at ``png`` looks blank to a reader, or None when it shows something."""
    from PIL import Image, ImageStat

    with Image.open(png) as image:
        grey = image.convert("L")
        low, high = grey.getextrema()
        if low == high:
            return f"one flat colour (grey level {low})"
        stddev = ImageStat.Stat(grey).stddev[0]
        if stddev < threshold:
            return f"nearly blank (grey level spread {stddev:.2f} < {threshold})"
    return None


def report_problems(docname: str, report: dict, origin: str) -> list[str]:
    """Problems a reader would see, from the page report of ``REPORT_JS``. An image
    from another host than ``origin`` is not one: its request is a warning.
    """
    problems = []
    h1 = report.get("h1")
    if h1 is None:
        problems.append(f"{docname}: no <h1> title in the article")
    elif not h1["visible"]:
        problems.append(f"{docname}: the <h1> title {h1['text']!r} is not visible")
    for error in report.get("mathjaxErrors", []):
        problems.append(f"{docname}: MathJax shows an error: {error}")
    raw = report.get("rawMath", [])
    if raw:
        problems.append(f"{docname}: {len(raw)} formula(s) not typeset (raw TeX shown), first: {raw[0]!r}")
    for img in report.get("images", []):
        if img.get("url") and not is_local(img["url"], origin):
            continue
        if not img["complete"]:
            problems.append(f"{docname}: image {img['src']!r} never finished loading")
        elif img["naturalWidth"] <= 0:
            problems.append(f"{docname}: image {img['src']!r} is broken (nothing to show)")
    if report.get("scrollWidth", 0) > report.get("viewportWidth", 0) + 1:
        problems.append(
            f"{docname}: the page scrolls sideways ({report['scrollWidth']} px wide "
            f"in a {report['viewportWidth']} px window)"
        )
    return problems


def report_warnings(docname: str, report: dict) -> list[str]:
    """What a reader would find awkward but not broken, from the page report."""
    warnings = []
    for img in report.get("images", []):
        natural, shown = img.get("naturalWidth", 0), img.get("shownWidth", 0)
        if natural > 0 and 0 < shown < MIN_FIGURE_SCALE * natural:
            name = Path(img["src"]).name
            if len(name) > 24:  # a content hash: its start is enough to find it
                name = f"{name[:12]}...{Path(name).suffix}"
            warnings.append(
                f"{docname}: figure {name} is shown at {shown / natural:.0%} of its "
                f"{natural} px width ({shown} px): its text is hard to read"
            )
    for item in report.get("wide", []):
        warnings.append(
            f"{docname}: a {item['what']} {item['width']} px wide in a {item['room']} px column "
            f"scrolls sideways ({item['text']!r})"
        )
    return warnings


def known_harmless(text: str) -> str | None:
    """The :data:`KNOWN_HARMLESS` message that ``text`` is, if any."""
    return next((known for known in KNOWN_HARMLESS if known in text), None)


@dataclass
class PageEvents:
    """What the browser reported while a page was open, reduced to plain lines."""

    docname: str
    origin: str
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    harmless: list[str] = field(default_factory=list)
    _answered: set[str] = field(default_factory=set, repr=False)

    def _error(self, what: str, text: str) -> None:
        known = known_harmless(text)
        if known:
            self.harmless.append(known)
        else:
            self.problems.append(f"{self.docname}: {what}: {_one_line(text)}")

    def console(self, kind: str, text: str) -> None:
        if kind == "error" and not text.startswith(CONSOLE_REQUEST_NOISE):
            self._error("console error", text)

    def page_error(self, text: str) -> None:
        self._error("uncaught error", text)

    def response(self, url: str, status: int) -> None:
        if status >= 400 and is_local(url, self.origin):
            self.problems.append(f"{self.docname}: HTTP {status} for {_path(url)}")
            self._answered.add(url)

    def request_failed(self, url: str, failure: str | None) -> None:
        if url in self._answered:  # Chromium drops a 4xx stylesheet or script: told already
            return
        if is_local(url, self.origin):
            self.problems.append(f"{self.docname}: request for {_path(url)} failed ({failure})")
        else:
            self.external(url)

    def external(self, url: str) -> None:
        line = f"{self.docname}: request to an external host blocked: {_one_line(url)}"
        if line not in self.warnings:
            self.warnings.append(line)


def _error_text(exc) -> str:
    """``SyntaxError: Identifier 'x' has already been declared`` from a page error."""
    name, message = getattr(exc, "name", None), getattr(exc, "message", None) or str(exc)
    return f"{name}: {message}" if name else message


def _one_line(text: str, limit: int = 200) -> str:
    return " ".join(str(text).split())[:limit]


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


@contextlib.contextmanager
def serve(html_dir: Path):
    """Serve ``html_dir`` on ``http://127.0.0.1:<free port>`` from a thread; yields the origin."""

    class QuietHandler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format, *args):  # noqa: A002 - http.server's signature
            pass

    handler = functools.partial(QuietHandler, directory=str(html_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="screenshot-site-http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# ----------------------------------------------------------------------------------
# The browser


@dataclass
class PageResult:
    docname: str
    problems: list[str]
    warnings: list[str]
    harmless: list[str]
    shots: list[Path]


class _Listener:
    """Routes the events of the one reused tab to the page being checked (or nowhere)."""

    def __init__(self) -> None:
        self.current: PageEvents | None = None

    def __call__(self, method: str, *args) -> None:
        if self.current is not None:
            getattr(self.current, method)(*args)


def _full_page_png(page, cdp) -> bytes:
    """The whole page as PNG. Chromium's own capture with ``optimizeForSpeed`` encodes
    a 20,000 px page about twice as fast as ``page.screenshot(full_page=True)``.
    """
    from playwright.sync_api import Error

    width, height = page.evaluate(
        "() => { const e = document.scrollingElement || document.documentElement; return"
        " [Math.max(e.scrollWidth, innerWidth), Math.max(e.scrollHeight, innerHeight)]; }"
    )
    try:
        shot = cdp.send(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "optimizeForSpeed": True,
                "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
            },
        )
        return base64.b64decode(shot["data"])
    except Error:
        return page.screenshot(full_page=True)


def check_page(page, cdp, listener: _Listener, origin: str, docname: str, out: Path) -> PageResult:
    """Load ``docname`` in ``page``, check it as a reader sees it and screenshot it."""
    events = PageEvents(docname, origin)
    problems: list[str] = []
    warnings: list[str] = []
    shots: list[Path] = []
    listener.current = events
    try:
        response = page.goto(f"{origin}/{docname}.html", wait_until="load", timeout=NAV_TIMEOUT_MS)
        if response is not None and response.status < 400:  # else the response event told
            for note in page.evaluate(READY_JS, [READY_TIMEOUT_MS, MATHJAX_START_MS]):
                problems.append(f"{docname}: {note}")
            report = page.evaluate(REPORT_JS)
            problems += report_problems(docname, report, origin)
            warnings += report_warnings(docname, report)
            full, viewport = shot_paths(out, docname)
            full.parent.mkdir(parents=True, exist_ok=True)
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(viewport))
            full.write_bytes(_full_page_png(page, cdp))
            shots += [viewport, full]
        elif response is None:
            problems.append(f"{docname}: the page did not load")
    except Exception as exc:  # a timeout or a crashed tab: report it, check the rest
        problems.append(f"{docname}: the browser could not show the page: {_one_line(exc)}")
    finally:
        # Leave the page before the next one starts, so that its last events (requests
        # cancelled on unload) are not put on the next page.
        listener.current = None
        with contextlib.suppress(Exception):
            page.goto("about:blank", timeout=NAV_TIMEOUT_MS)
    return PageResult(docname, events.problems + problems, events.warnings + warnings, events.harmless, shots)


def run(html_dir: Path, docnames: list[str], out: Path, chromium: Path) -> tuple[list[PageResult], str]:
    """Check every page in one headless Chromium; returns the results and its version."""
    from concurrent.futures import ThreadPoolExecutor

    from playwright.sync_api import sync_playwright

    results = []
    with (
        serve(html_dir) as origin,
        ThreadPoolExecutor(max_workers=1) as pool,
        sync_playwright() as pw,
    ):
        browser = pw.chromium.launch(
            executable_path=str(chromium), headless=True, args=CHROMIUM_ARGS + BLOCK_EXTERNAL_ARGS
        )
        try:
            context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1, service_workers="block")
            # Every page is a reader's first visit: no stored theme mode or sidebar
            # position from the page before.
            context.add_init_script("try { localStorage.clear(); sessionStorage.clear(); } catch (e) {}")
            listener = _Listener()
            page = context.new_page()
            page.on("console", lambda msg: listener("console", msg.type, msg.text))
            page.on("pageerror", lambda exc: listener("page_error", _error_text(exc)))
            page.on("response", lambda resp: listener("response", resp.url, resp.status))
            page.on("requestfailed", lambda req: listener("request_failed", req.url, req.failure))
            cdp = context.new_cdp_session(page)
            # The screenshots are decoded and measured on a thread while the browser
            # goes on with the next page.
            blank_checks = []
            for docname in docnames:
                result = check_page(page, cdp, listener, origin, docname, out)
                results.append(result)
                blank_checks += [(result, shot, pool.submit(blank_reason, shot)) for shot in result.shots]
            for result, shot, future in blank_checks:
                try:
                    reason = future.result()
                except Exception as exc:  # noqa: BLE001 - a PNG Pillow cannot read
                    reason = f"unreadable: {_one_line(exc)}"
                if reason:
                    result.problems.append(f"{result.docname}: screenshot {shot.name} is blank: {reason}")
            version = browser.version
            context.close()
        finally:
            browser.close()
    return results, version


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Check and screenshot every page of the built book in headless Chromium."
    )
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--out", type=Path, default=None, help="default: <html>/../screenshots")
    parser.add_argument("--toc", type=Path, default=ROOT / "_toc.yml")
    parser.add_argument(
        "--chromium", default=None, help=f"the browser (default: {DEFAULT_CHROMIUM}, else chromium on PATH)"
    )
    parser.add_argument(
        "--require-browser", action="store_true", help="fail instead of skipping when there is no browser"
    )
    args = parser.parse_args(argv)
    start = time.monotonic()
    html_dir = args.html.resolve()
    out = (args.out or html_dir.parent / "screenshots").resolve()

    chromium = find_chromium(args.chromium)
    missing = None
    if chromium is None:
        missing = f"no Chromium found at {args.chromium or DEFAULT_CHROMIUM}"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            missing = "the Python package playwright is not installed"
    if missing:
        verdict = "FAILED" if args.require_browser else "skipped"
        print(f"screenshot_site: {verdict}: {missing}; {SKIP_HINT}")
        return 1 if args.require_browser else 0

    if not html_dir.is_dir():
        print(f"screenshot_site: no built site at {html_dir} (run make book first)")
        return 1
    docnames = toc_docnames(args.toc)
    try:
        results, version = run(html_dir, docnames, out, chromium)
    except Exception as exc:  # Chromium would not start, or the driver died
        print(f"screenshot_site: FAILED: headless Chromium ({chromium}) did not run: {_one_line(exc, 400)}")
        return 1
    seconds = time.monotonic() - start
    problems = [line for r in results for line in r.problems]
    warnings = [line for r in results for line in r.warnings]
    for known, reason in KNOWN_HARMLESS.items():
        pages = [r.docname for r in results if known in r.harmless]
        if pages:
            warnings.append(f"{len(pages)} page(s): {known!r}: known and harmless: {reason}")
    for line in warnings:
        print(f"screenshot_site: warning: {line}")
    n_shots = sum(len(r.shots) for r in results)
    if problems:
        print(f"screenshot_site: {len(problems)} problem(s) in {html_dir} (Chromium {version}):")
        for line in problems:
            print(f"  - {line}")
        print(f"screenshot_site: screenshots in {out}")
        return 1
    print(
        f"screenshot_site: {len(results)} page(s) OK in headless Chromium {version}, "
        f"{n_shots} screenshot(s) in {out} ({seconds:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
