"""scripts/screenshot_site.py: the pure parts without a browser, then one small site
in headless Chromium (skipped where /usr/bin/chromium or playwright is missing).
"""

from __future__ import annotations

import importlib.util
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "screenshot_site.py"


def _load():
    spec = importlib.util.spec_from_file_location("screenshot_site", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("screenshot_site", module)
    spec.loader.exec_module(module)
    return module


shots = _load()
ORIGIN = "http://127.0.0.1:8123"


# ---------------------------------------------------------------- finding Chromium


def test_find_chromium_explicit_path(tmp_path):
    browser = tmp_path / "chromium"
    browser.write_text("#!/bin/sh\n")
    assert shots.find_chromium(str(browser)) == browser
    assert shots.find_chromium(str(tmp_path / "absent")) is None


def test_find_chromium_default_and_path(monkeypatch, tmp_path):
    monkeypatch.setattr(shots, "DEFAULT_CHROMIUM", str(tmp_path / "absent"))
    monkeypatch.setattr(shots.shutil, "which", lambda name: None)
    assert shots.find_chromium() is None
    on_path = tmp_path / "chromium"
    on_path.write_text("")
    monkeypatch.setattr(shots.shutil, "which", lambda name: str(on_path) if name == "chromium" else None)
    assert shots.find_chromium() == on_path


# ---------------------------------------------------------------- URLs and paths


@pytest.mark.parametrize(
    ("url", "local"),
    [
        (f"{ORIGIN}/notebooks/grids.html", True),
        (f"{ORIGIN}/_images/a.png?x=1", True),
        ("data:image/png;base64,AAAA", True),
        ("about:blank", True),
        ("http://127.0.0.1:9999/other-port.js", False),
        ("https://unpkg.com/thebe@0.8.2/lib/index.js", False),
        ("http://localhost:8123/same-port-other-name.js", False),
    ],
)
def test_is_local(url, local):
    assert shots.is_local(url, ORIGIN) is local


def test_shot_paths_keep_the_docname_folders(tmp_path):
    full, viewport = shots.shot_paths(tmp_path, "notebooks/grids")
    assert full == tmp_path / "notebooks" / "grids.png"
    assert viewport == tmp_path / "notebooks" / "grids.viewport.png"
    full, viewport = shots.shot_paths(tmp_path, "index")
    assert (full.name, viewport.name, full.parent) == ("index.png", "index.viewport.png", tmp_path)


# ---------------------------------------------------------------- blank screenshots


def test_blank_reason(tmp_path):
    from PIL import Image, ImageDraw

    white = tmp_path / "white.png"
    Image.new("RGB", (200, 100), "white").save(white)
    assert "one flat colour" in shots.blank_reason(white)

    speck = tmp_path / "speck.png"
    image = Image.new("RGB", (200, 100), "white")
    image.putpixel((3, 3), (0, 0, 0))  # one dark pixel: still nothing to read
    image.save(speck)
    assert "nearly blank" in shots.blank_reason(speck)

    page = tmp_path / "page.png"
    image = Image.new("RGB", (200, 100), "white")
    draw = ImageDraw.Draw(image)
    for y in range(10, 90, 12):  # lines of "text"
        draw.rectangle((10, y, 180, y + 5), fill=(30, 30, 30))
    image.save(page)
    assert shots.blank_reason(page) is None


# ---------------------------------------------------------------- the page report


def _report(**changes):
    report = {
        "h1": {"text": "1. Networks", "visible": True},
        "mathjaxErrors": [],
        "rawMath": [],
        "images": [{"src": "../_images/a.png", "url": f"{ORIGIN}/_images/a.png", "complete": True, "naturalWidth": 640, "shownWidth": 640}],
        "wide": [],
        "scrollWidth": 1280,
        "viewportWidth": 1280,
    }
    report.update(changes)
    return report


def test_a_clean_report_has_no_problem_and_no_warning():
    assert shots.report_problems("p", _report(), ORIGIN) == []
    assert shots.report_warnings("p", _report()) == []


def test_report_problems_name_the_page_and_what_is_wrong():
    assert shots.report_problems("p", _report(h1=None), ORIGIN) == ["p: no <h1> title in the article"]
    hidden = shots.report_problems("p", _report(h1={"text": "Title", "visible": False}), ORIGIN)
    assert hidden == ["p: the <h1> title 'Title' is not visible"]
    errors = shots.report_problems("p", _report(mathjaxErrors=["Missing close brace in \\frac{a", "Math input error"]), ORIGIN)
    assert errors == [
        "p: MathJax shows an error: Missing close brace in \\frac{a",
        "p: MathJax shows an error: Math input error",
    ]
    raw = shots.report_problems("p", _report(rawMath=["\\(x\\)", "\\(y\\)"]), ORIGIN)
    assert raw == ["p: 2 formula(s) not typeset (raw TeX shown), first: '\\\\(x\\\\)'"]
    wide = shots.report_problems("p", _report(scrollWidth=3000), ORIGIN)
    assert wide == ["p: the page scrolls sideways (3000 px wide in a 1280 px window)"]


def test_report_problems_on_images():
    images = [
        {"src": "", "url": "", "complete": True, "naturalWidth": 0, "shownWidth": 0},
        {"src": "../_images/gone.png", "url": f"{ORIGIN}/_images/gone.png", "complete": True, "naturalWidth": 0, "shownWidth": 16},
        {"src": "slow.png", "url": f"{ORIGIN}/slow.png", "complete": False, "naturalWidth": 0, "shownWidth": 0},
        # another host: its blocked request is a warning, not a broken image
        {"src": "https://example.org/a.png", "url": "https://example.org/a.png", "complete": True, "naturalWidth": 0, "shownWidth": 0},
    ]
    assert shots.report_problems("p", _report(images=images), ORIGIN) == [
        "p: image '' is broken (nothing to show)",
        "p: image '../_images/gone.png' is broken (nothing to show)",
        "p: image 'slow.png' never finished loading",
    ]


def test_report_warnings_on_small_figures_and_wide_tables():
    name = "f1fcbf48f44ab659879307cad185af2e494bcb867b6d529aed9a80a2ef0bea33.png"
    images = [
        {"src": f"../_images/{name}", "url": "", "complete": True, "naturalWidth": 1100, "shownWidth": 688},
        {"src": "../_images/ok.png", "url": "", "complete": True, "naturalWidth": 800, "shownWidth": 688},
    ]
    wide = [{"what": "table", "width": 1051, "room": 688, "text": "variables treewidth"}]
    assert shots.report_warnings("p", _report(images=images, wide=wide)) == [
        "p: figure f1fcbf48f44a....png is shown at 63% of its 1100 px width (688 px): its text is hard to read",
        "p: a table 1051 px wide in a 688 px column scrolls sideways ('variables treewidth')",
    ]


# ---------------------------------------------------------------- browser events


def test_page_events_sort_problems_warnings_and_known_harmless_errors():
    events = shots.PageEvents("p", ORIGIN)
    events.console("log", "[togglebutton]: Adding toggle buttons to 0 items")
    events.console("warning", "something deprecated")
    events.console("error", "Failed to load resource: the server responded with a status of 404")
    events.console("error", "Got invalid theme mode: . Resetting to auto.")
    events.page_error("SyntaxError: Identifier 'THEBE_JS_URL' has already been declared")
    assert events.problems == [] and events.warnings == []
    assert events.harmless == list(shots.KNOWN_HARMLESS)[::-1]

    events.console("error", "boom\n  at line 3")
    events.page_error("Error: x")
    assert events.problems == ["p: console error: boom at line 3", "p: uncaught error: Error: x"]


def test_page_events_on_requests():
    events = shots.PageEvents("p", ORIGIN)
    events.response(f"{ORIGIN}/_static/ok.css", 200)
    events.response(f"{ORIGIN}/_static/missing.css?v=1", 404)
    events.request_failed(f"{ORIGIN}/_static/missing.css?v=1", "net::ERR_ABORTED")  # the same one
    events.request_failed(f"{ORIGIN}/_images/cut.png", "net::ERR_CONNECTION_RESET")
    events.response("https://example.org/x.js", 500)  # not ours: a warning at most
    events.request_failed("https://example.org/x.js", "net::ERR_PROXY_CONNECTION_FAILED")
    events.request_failed("https://example.org/x.js", "net::ERR_PROXY_CONNECTION_FAILED")
    assert events.problems == [
        "p: HTTP 404 for /_static/missing.css?v=1",
        "p: request for /_images/cut.png failed (net::ERR_CONNECTION_RESET)",
    ]
    assert events.warnings == ["p: request to an external host blocked: https://example.org/x.js"]


# ---------------------------------------------------------------- the local server


def test_serve_serves_the_folder_on_loopback_and_stops(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "page.html").write_text("<h1>hello</h1>", encoding="utf-8")
    with shots.serve(tmp_path) as origin:
        assert origin.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(f"{origin}/sub/page.html", timeout=120) as answer:  # a hang guard only
            assert answer.status == 200 and answer.read() == b"<h1>hello</h1>"
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"{origin}/sub/absent.html", timeout=120)
        missing.value.close()
        assert missing.value.code == 404
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"{origin}/sub/page.html", timeout=2)


# ---------------------------------------------------------------- without a browser


def test_without_chromium_it_skips_or_fails_on_request(tmp_path, capsys):
    args = ["--html", str(tmp_path), "--chromium", str(tmp_path / "no-chromium")]
    assert shots.main(args) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("screenshot_site: skipped: no Chromium found") and "apt-get install -y chromium" in line
    assert shots.main([*args, "--require-browser"]) == 1
    assert capsys.readouterr().out.startswith("screenshot_site: FAILED: no Chromium found")


def test_without_playwright_it_skips(tmp_path, capsys, monkeypatch):
    browser = tmp_path / "chromium"
    browser.write_text("")
    monkeypatch.setitem(sys.modules, "playwright.sync_api", None)  # import fails
    assert shots.main(["--html", str(tmp_path), "--chromium", str(browser)]) == 0
    assert "playwright is not installed" in capsys.readouterr().out


# ---------------------------------------------------------------- in headless Chromium

CHROMIUM = Path(shots.DEFAULT_CHROMIUM)
needs_browser = pytest.mark.skipif(
    not CHROMIUM.is_file() or importlib.util.find_spec("playwright") is None,
    reason=f"needs {CHROMIUM} (apt-get install chromium) and playwright",
)

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title>{head}</head>
<body style="font: 16px sans-serif"><main><article class="bd-article">
<h1>{title}</h1><p>Some text a reader reads, and a figure:</p>{body}</article></main></body></html>"""


def _site(tmp_path: Path) -> tuple[Path, Path]:
    from PIL import Image, ImageDraw

    html = tmp_path / "html"
    (html / "_images").mkdir(parents=True)
    (html / "chapters").mkdir()
    figure = Image.new("RGB", (300, 120), "white")
    ImageDraw.Draw(figure).ellipse((20, 20, 280, 100), outline="navy", width=5)
    figure.save(html / "_images" / "fig.png")
    pages = {
        "index": PAGE.format(title="Preface", head="", body='<img src="_images/fig.png" alt="fig">'),
        "chapters/good": PAGE.format(title="Good", head="", body='<img src="../_images/fig.png" alt="fig">'),
        "chapters/broken": PAGE.format(
            title="Broken",
            head='<link rel="stylesheet" href="../_static/missing.css">',
            body='<img src="../_images/absent.png" alt="x"><img src="https://example.org/remote.png" alt="y">'
            '<span class="math">\\(x^2\\)</span><script>throw new Error("deliberate")</script>',
        ),
    }
    for docname, text in pages.items():
        (html / f"{docname}.html").write_text(text, encoding="utf-8")
    toc = tmp_path / "_toc.yml"
    toc.write_text(
        "format: jb-book\nroot: index\nchapters:\n  - file: chapters/good\n  - file: chapters/broken.md\n",
        encoding="utf-8",
    )
    return html, toc


@needs_browser
def test_a_small_site_in_headless_chromium(tmp_path, capsys):
    from PIL import Image

    html, toc = _site(tmp_path)
    out = tmp_path / "shots"
    code = shots.main(["--html", str(html), "--toc", str(toc), "--out", str(out), "--require-browser"])
    printed = capsys.readouterr().out
    assert code == 1, printed
    problems = [line.strip()[2:] for line in printed.splitlines() if line.startswith("  - ")]
    assert sorted(problems) == sorted(
        [
            "chapters/broken: HTTP 404 for /_static/missing.css",
            "chapters/broken: HTTP 404 for /_images/absent.png",
            "chapters/broken: uncaught error: Error: deliberate",
            "chapters/broken: image '../_images/absent.png' is broken (nothing to show)",
            "chapters/broken: 1 formula(s) not typeset (raw TeX shown), first: '\\\\(x^2\\\\)'",
        ]
    ), printed
    assert "screenshot_site: warning: chapters/broken: request to an external host blocked: https://example.org/remote.png" in printed
    for docname in ("index", "chapters/good", "chapters/broken"):
        full, viewport = shots.shot_paths(out, docname)
        with Image.open(viewport) as image:
            assert image.size == (1280, 800)
        with Image.open(full) as image:
            assert image.width == 1280 and image.height >= 800
        assert shots.blank_reason(full) is None and shots.blank_reason(viewport) is None

    # The two good pages alone: a clean one-line summary.
    toc.write_text("format: jb-book\nroot: index\nchapters:\n  - file: chapters/good\n", encoding="utf-8")
    assert shots.main(["--html", str(html), "--toc", str(toc), "--out", str(out)]) == 0
    summary = capsys.readouterr().out.strip().splitlines()
    assert len(summary) == 1 and summary[0].startswith("screenshot_site: 2 page(s) OK in headless Chromium")
    assert "4 screenshot(s)" in summary[0]
