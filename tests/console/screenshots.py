"""Take the docs' screenshots of the console (``make screenshots``): the served examples in headless Chromium.

    python -m tests.console.screenshots [OUT_DIR] [--gallery-only] [--route /path ...]   # default: docs/

Two kinds: a few finished runs (``SHOTS``, ``docs/console-*.png``), and the gallery: for every route the console
lists (``GET /examples``), one contact sheet (``docs/console/<route>.png``) of six shots, the route mid-run (held
half-way on the server, ``tests/console/gallery.py``) and after Stop, at 390, 1024 and 1440 px.
"""

from __future__ import annotations

import argparse
import base64
import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from tests.console.app import build_examples_app
from tests.console.browser import open_example, send, wait_idle
from tests.console.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.console.gallery import (
    PHASES,
    WIDTHS,
    Hold,
    Route,
    at_width,
    held_examples,
    routes,
    run_to_the_middle,
    stop,
)
from tests.support.live import LiveServer

SHOTS: tuple[tuple[str, str, str, bool], ...] = (
    # (file, example path, prompt, expand the inspector's first tool step)
    ("console-recipe.png", "/shared_state", "make a vegetarian pasta recipe, add basil", False),
    ("console-plan.png", "/agentic_generative_ui", "plan a launch: write the post, record a demo, then ship", False),
    ("console-tools.png", "/backend_tool_rendering", "what is the weather in Lisbon?", False),
    ("console-chart.png", "/backend_tool_rendering", "Chart of monthly sales: 12, 19, 7, 24, 15", False),
    ("console-approval.png", "/human_in_the_loop", "book me a flight to Paris", False),
    ("console-a2ui.png", "/a2ui_generative_ui", "A packing checklist: passport, charger and sunscreen", False),
)


def shoot(page: Any, blank: Any, server: LiveServer, out: Path, name: str, path: str, prompt: str,
          expand: bool) -> None:
    open_example(page, server, path)
    send(page, prompt)
    wait_idle(page)
    page.wait_for_timeout(400)
    if expand:
        page.locator('[data-testid="inspector-step"]').filter(has_text="open_tool_call").locator("summary").click()
    (out / name).write_bytes(indexed(blank, page.screenshot()))
    print(out / name, f"{(out / name).stat().st_size // 1024} KiB")


SCALE = 0.6  # each shot on a route's sheet, of its CSS pixels


def shoot_route(browser: Any, server: LiveServer, hold: Hold, route: Route) -> dict[tuple[str, int], bytes]:
    """The route mid-run (held half-way) and after Stop, at each width: {(phase, width): PNG}."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    shots: dict[tuple[str, int], bytes] = {}
    try:
        run_to_the_middle(page, server, hold, route)
        for phase in PHASES:
            if phase == "stopped":
                stop(page, hold)
            for width, height in WIDTHS:
                at_width(page, width, height)
                shots[(phase, width)] = page.screenshot()
    finally:
        hold.release.set()
        context.close()
    return shots


SHEET = """<!doctype html><meta charset="utf-8"><style>
  body { margin: 0; padding: 14px 16px 16px; font: 14px/1.4 system-ui, "DejaVu Sans", sans-serif; color: #1f2328;
         background: #eef1f5; width: max-content; }
  h1 { font-size: 17px; margin: 0 0 10px; } h1 code { font-size: 14px; color: #656d76; font-weight: normal; }
  table { border-spacing: 12px 6px; margin: -6px -12px; } th { text-align: left; font-weight: 600; color: #656d76; }
  td { vertical-align: top; } img { display: block; border: 1px solid #d0d7de; border-radius: 4px; background: #fff; }
</style><h1></h1><table><thead><tr><th></th></tr></thead><tbody></tbody></table>"""


def contact_sheet(browser: Any, route: Route, shots: dict[tuple[str, int], bytes], target: Path) -> None:
    """The six shots of a route tiled (rows: mid-run, after Stop; columns: the widths), drawn by Chromium."""
    page = browser.new_page(viewport={"width": 400, "height": 300})
    try:
        page.set_content(SHEET)
        page.evaluate("""([title, prompt, widths, rows, scale]) => {
            const h1 = document.querySelector('h1');
            h1.textContent = title + ' ';
            const code = document.createElement('code'); code.textContent = prompt; h1.append(code);
            const head = document.querySelector('thead tr');
            for (const [w] of widths) {
                const th = document.createElement('th'); th.textContent = `${w} px`; head.append(th);
            }
            const body = document.querySelector('tbody');
            for (const [label, images] of rows) {
                const tr = document.createElement('tr'), th = document.createElement('th');
                th.textContent = label; tr.append(th);
                images.forEach((src, i) => {
                    const td = document.createElement('td'), img = document.createElement('img');
                    img.src = src;
                    img.width = Math.round(widths[i][0] * scale); img.height = Math.round(widths[i][1] * scale);
                    td.append(img); tr.append(td);
                });
                body.append(tr);
            }
        }""", [f"{route.name}", f"{route.path} · \u201c{route.prompt}\u201d", [list(w) for w in WIDTHS],
               [[label, [_data_url(shots[(phase, w)]) for w, _ in WIDTHS]]
                for phase, label in zip(PHASES, ("mid-run", "after Stop"), strict=True)], SCALE])
        page.wait_for_function("[...document.images].every((i) => i.complete)")
        sheet = page.screenshot(full_page=True)
        target.write_bytes(indexed(page, sheet))
    finally:
        page.close()
    print(target, f"{target.stat().st_size // 1024} KiB (from {len(sheet) // 1024} KiB)")


# A PNG with at most 256 colours (the most used ones, each pixel its nearest), encoded by the page itself
# (CompressionStream's zlib): a screenshot of flat UI loses nothing a reader sees and about two thirds of its bytes.
INDEXED_PNG = """async (b64) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + b64;
    await img.decode();
    const w = img.naturalWidth, h = img.naturalHeight;
    const canvas = new OffscreenCanvas(w, h), ctx = canvas.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const px = ctx.getImageData(0, 0, w, h).data;
    const key = (i) => ((px[i] >> 3) << 10) | ((px[i + 1] >> 3) << 5) | (px[i + 2] >> 3);
    const counts = new Map();
    for (let i = 0; i < px.length; i += 4) { const k = key(i); counts.set(k, (counts.get(k) || 0) + 1); }
    const exact = new Map();  // each bucket's colour as it is first seen (a real colour of the page)
    for (let i = 0; i < px.length; i += 4) {
        const k = key(i);
        if (!exact.has(k)) exact.set(k, [px[i], px[i + 1], px[i + 2]]);
    }
    const palette = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 256).map(([k]) => exact.get(k));
    const nearest = new Map();
    const index = (k, r, g, b) => {
        let found = nearest.get(k);
        if (found !== undefined) return found;
        let best = 0, dist = Infinity;
        palette.forEach(([pr, pg, pb], n) => {
            const d = 2 * (pr - r) ** 2 + 4 * (pg - g) ** 2 + 3 * (pb - b) ** 2;
            if (d < dist) { dist = d; best = n; }
        });
        nearest.set(k, best);
        return best;
    };
    const raw = new Uint8Array((w + 1) * h);
    for (let y = 0, o = 0; y < h; y++) {
        raw[o++] = 0;  // filter: none
        for (let x = 0; x < w; x++) {
            const i = (y * w + x) * 4;
            raw[o++] = index(key(i), px[i], px[i + 1], px[i + 2]);
        }
    }
    const zipped = new Uint8Array(await new Response(new Blob([raw]).stream()
        .pipeThrough(new CompressionStream('deflate'))).arrayBuffer());
    const table = new Uint32Array(256).map((_, n) => {
        let c = n; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; return c;
    });
    const crc = (bytes) => {
        let c = ~0;
        for (const b of bytes) c = table[(c ^ b) & 255] ^ (c >>> 8);
        return ~c >>> 0;
    };
    const chunk = (type, data) => {
        const out = new Uint8Array(12 + data.length), view = new DataView(out.buffer);
        view.setUint32(0, data.length);
        out.set([...type].map((c) => c.charCodeAt(0)), 4);
        out.set(data, 8);
        view.setUint32(8 + data.length, crc(out.subarray(4, 8 + data.length)));
        return out;
    };
    const header = new Uint8Array(13), hv = new DataView(header.buffer);
    hv.setUint32(0, w); hv.setUint32(4, h); header.set([8, 3, 0, 0, 0], 8);  // 8 bits, indexed
    const parts = [new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header),
                   chunk('PLTE', new Uint8Array(palette.flat())), chunk('IDAT', zipped),
                   chunk('IEND', new Uint8Array())];
    const bytes = new Uint8Array(await new Blob(parts).arrayBuffer());
    let text = '';
    for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(text);
}"""


def indexed(page: Any, png: bytes) -> bytes:
    """``png`` as an indexed PNG (``INDEXED_PNG``), or as it is when that is no smaller."""
    small = base64.b64decode(page.evaluate(INDEXED_PNG, base64.b64encode(png).decode("ascii")))
    return small if len(small) < len(png) else png


def _data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def sheet_name(route: Route) -> str:
    return f"{route.path.strip('/') or 'root'}.png"


def gallery(browser: Any, out: Path, only: set[str] | None = None) -> None:
    """One contact sheet per route the console lists, in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    with held_examples() as (server, hold):
        for route in routes(server):
            if only and route.path not in only:
                continue
            contact_sheet(browser, route, shoot_route(browser, server, hold, route), out / sheet_name(route))


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.console.screenshots", description=__doc__.split("\n")[0])
    parser.add_argument("out", nargs="?", default="docs", help="the docs folder (default: docs)")
    parser.add_argument("--gallery-only", action="store_true", help="only the routes' sheets (docs/console/)")
    parser.add_argument("--route", action="append", help="only this route's sheet (e.g. /agentic_chat; repeatable)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        if not (args.gallery_only or args.route):
            with LiveServer(build_examples_app()) as server:
                page = browser.new_page(viewport={"width": 1440, "height": 900})
                blank = browser.new_page()  # where a shot is made an indexed PNG (no page's policy in the way)
                for shot in SHOTS:
                    shoot(page, blank, server, out, *shot)
                page.close()
                blank.close()
        gallery(browser, out / "console", set(args.route) if args.route else None)
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])
