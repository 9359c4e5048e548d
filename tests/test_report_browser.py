"""The report and the browser in a real browser: headless Chromium (Debian's package, which `make
test` installs where apt works) driven by playwright. No console errors, the filters and pages change
which items are visible, every image on screen decodes, the perturbed holes are marked. Screenshots
land in each test's temp folder. Where no Chromium can be started these tests skip, saying why."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest

from test_report import (  # noqa: F401  (fixtures shared with the structural tests, built once)
    check_page, holes_report, perturbed_plans, planning_report, small, small_report,
)

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _skip(reason: str):
    warnings.warn(f"browser tests skipped: {reason}", pytest.PytestWarning, stacklevel=2)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def chromium(tmp_path_factory):
    """A fresh headless Chromium (its own profile folder), or a skip naming why there is none."""
    executable = CHROMIUM if CHROMIUM.exists() else Path(shutil.which("chromium") or CHROMIUM)
    if not executable.exists():
        _skip(f"no Chromium at {CHROMIUM} (make test installs Debian's chromium where apt-get can)")
    from playwright.sync_api import sync_playwright

    driver = sync_playwright().start()
    try:
        context = driver.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=str(executable), headless=True, args=ARGS,
            viewport={"width": 1280, "height": 900})
    except Exception as problem:  # noqa: BLE001  (any failure to start is a reason to skip, said)
        driver.stop()
        _skip(f"headless Chromium cannot be started: {str(problem).strip().splitlines()[0]}")
    yield context
    context.close()
    driver.stop()


class Opened:
    """A page with every console error and uncaught exception collected."""

    def __init__(self, context, path: Path):
        self.page = context.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.page.on("request", lambda r: self.errors.append(f"network request: {r.url}")
                     if r.url.startswith(("http:", "https:", "ws:")) else None)
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_load_state("load")

    def visible_items(self) -> list[dict]:
        return self.page.eval_on_selector_all(
            "article.item:not([hidden])", "els => els.map(e => Object.assign({}, e.dataset))")

    def status(self) -> str:
        return self.page.inner_text(".pager .status")

    def choose(self, name: str, value: str) -> None:
        self.page.select_option(f"select[name={name}]", value)

    def broken_images(self) -> list[str]:
        """Visible images that did not decode (a data URI that is no image, an asset file that is missing)."""
        return self.page.eval_on_selector_all(
            "img", "els => els.filter(i => i.offsetParent !== null && !(i.complete && i.naturalWidth > 0))"
                   ".map(i => i.getAttribute('src').slice(0, 80))")

    def close(self) -> None:
        self.page.close()


def load_lazy_images(opened: Opened) -> None:
    """Load the lazily loaded images of the visible items now, and wait for them."""
    page = opened.page
    page.evaluate("() => document.querySelectorAll('img').forEach(i => { if (i.offsetParent) i.loading = 'eager'; })")
    for _ in range(200):  # polled from here: the page's CSP forbids the eval wait_for_function needs
        if page.evaluate("() => Array.from(document.images).filter(i => i.offsetParent !== null).every(i => i.complete)"):
            return
        page.wait_for_timeout(25)


def test_planning_report_in_chromium(chromium, planning_report, tmp_path):
    """Done-when: the published plans and a perturbed copy side by side, no errors, filters work,
    and the item view marks the moved holes."""
    out, data = planning_report
    opened = Opened(chromium, out)
    page = opened.page
    header = page.inner_text("table.metrics thead")
    assert "published" in header and "perturbed" in header
    first = opened.visible_items()
    assert len(first) == 10 and opened.status().startswith("400 of 400 items match")
    page.screenshot(path=str(tmp_path / "report-top.png"))

    opened.choose("model", "1")
    opened.choose("verdict", "wrong")
    wrong = opened.visible_items()
    assert wrong and all(item["v1"] == "wrong" for item in wrong)
    assert [i["id"] for i in wrong] != [i["id"] for i in first]
    matching = int(opened.status().split()[0])
    assert matching == sum(1 for i in data.items if i.answers[1].verdict == "wrong")
    card = page.locator("article.item:not([hidden])").first
    assert card.locator("figure[data-model='0']").is_hidden()  # one model chosen: the other's panel hides
    marks = card.locator("figure[data-model='1'] use.mk-missing, figure[data-model='1'] use.mk-extra")
    assert marks.count() > 0 and marks.first.bounding_box()["width"] > 2
    card.screenshot(path=str(tmp_path / "perturbed-item.png"))

    page.click(".pager button[data-step='1']")
    second_page = opened.visible_items()
    assert second_page and {i["id"] for i in second_page}.isdisjoint({i["id"] for i in wrong})
    opened.choose("verdict", "")
    opened.choose("model", "")
    opened.choose("pattern", "FF")
    assert all(item["pattern"] == "FF" for item in opened.visible_items())
    assert opened.status().startswith("100 of 400")
    page.fill("input[name=id]", "PFHP_123")
    assert [i["id"] for i in opened.visible_items()] == []  # PFHP_123 has three folds, not FF
    opened.choose("pattern", "")
    assert [i["id"] for i in opened.visible_items()] == ["PFHP_123"]
    load_lazy_images(opened)
    assert opened.broken_images() == []
    page.screenshot(path=str(tmp_path / "report-full.png"), full_page=True)
    assert opened.errors == []
    opened.close()
    assert (tmp_path / "perturbed-item.png").stat().st_size > 5_000


def test_small_report_in_chromium(chromium, small_report, tmp_path):
    """Drawn step images decode, the level and verdict filters work, an unreadable answer shows why."""
    out, _ = small_report
    opened = Opened(chromium, out)
    assert len(opened.visible_items()) == 8
    load_lazy_images(opened)
    assert opened.broken_images() == []
    assert opened.page.locator("article.item:not([hidden]) .media img").count() >= 7 * 4
    opened.choose("level", "3")
    assert {i["level"] for i in opened.visible_items()} == {"3"}
    opened.choose("level", "")
    opened.choose("verdict", "unreadable")
    [unreadable] = opened.visible_items()
    assert unreadable["id"] == "PFHP_707_shape"
    assert "unparseable" in opened.page.inner_text(f"#item-{3} figure[data-model='1']")
    opened.choose("verdict", "disagree")
    assert len(opened.visible_items()) == 5  # direction, missing, extra, unreadable, no answer
    opened.page.screenshot(path=str(tmp_path / "small-report.png"), full_page=True)
    assert opened.errors == []
    opened.close()


def test_browser_with_asset_files_in_chromium(chromium, small, tmp_path):
    """`foldsim browse` output: media as files beside the page load under the page's no-network policy."""
    from foldsim.outputs.report import write_browser

    write_browser(small["dataset"], tmp_path / "browse")
    page_path = tmp_path / "browse" / "index.html"
    check_page(page_path)
    opened = Opened(chromium, page_path)
    load_lazy_images(opened)
    shown = opened.page.eval_on_selector_all("article.item:not([hidden]) .media img", "els => els.length")
    assert shown >= 7 * 4 and opened.broken_images() == []
    opened.choose("check", "invalid")
    assert [i["id"] for i in opened.visible_items()] == ["PFHP_bad"]
    opened.page.screenshot(path=str(tmp_path / "browse.png"))
    assert opened.errors == []
    opened.close()


def test_holes_report_in_chromium(chromium, holes_report, tmp_path):
    """The open-ended holes task on family items: no errors, the level filter, and the item view
    shows the perturbed model's marks on the item's sheet and the fold steps image."""
    out, _, files = holes_report
    opened = Opened(chromium, out)
    page = opened.page
    assert len(opened.visible_items()) == 4
    card = page.locator("article.item:not([hidden])").first
    for kind in ("missing", "extra", "match"):
        mark = card.locator(f"figure[data-model='1'] svg.grid-sheet circle.mk-{kind}").first
        assert mark.bounding_box()["width"] > 4, kind
    assert card.locator("figure.truth circle.mk-truth").count() == len(files["records"][0]["resultHoles"])
    assert "exact no" in card.locator("figure[data-model='1']").inner_text()
    load_lazy_images(opened)
    assert opened.broken_images() == [] and card.locator(".media img").count() == 1
    card.screenshot(path=str(tmp_path / "holes-item.png"))
    opened.choose("level", "srbench 2")
    assert [i["level"] for i in opened.visible_items()] == ["srbench 2"] * 2
    opened.choose("level", "")
    opened.choose("verdict", "unreadable")
    assert [i["id"] for i in opened.visible_items()] == [files["records"][3]["id"]]
    assert opened.errors == []
    opened.close()
