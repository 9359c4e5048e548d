"""The score report and dataset browser (foldsim report / browse), checked structurally: every item is
in the page, every image resolves (data URIs decode, asset files exist), every drawn glyph is
defined, and each answer's holes are marked right / missing / extra / wrong direction as the scorer
sees them. The same pages in a real browser: test_report_browser.py."""

from __future__ import annotations

import base64
import copy
import json
import re
from html.parser import HTMLParser
from fractions import Fraction
from pathlib import Path
from urllib.parse import unquote

import pytest

from foldsim.cli import main
from foldsim.eval.answers import PredictedHole
from foldsim.outputs.report import build_report, write_browser, write_page, write_report
from foldsim.outputs.report.build import compare_holes
from foldsim.outputs.report.plots import breakdown, group_order
from foldsim.holes import Hole
from foldsim.io import read_records

#: a few published generalization records: patterns F, FF and FR, prediction-format fields
SMALL_IDS = ("PFHP_803_shape", "PFHP_804_shape", "PFHP_705_shape", "PFHP_707_shape", "PFHP_401_shape",
             "PFHP_402_shape", "PFHP_812_shape")
#: pages and data built once per test session, shared with test_report_browser.py (which imports
#: these fixtures: a module-scoped fixture would otherwise run again for each module)
BUILT: dict[str, object] = {}
VOID = {"meta", "img", "input", "br", "hr", "link", "source", "area", "base", "col", "embed", "track", "wbr"}


# --------------------------------------------------------------------------------------------------
# a small HTML tree (the page is ours, so the standard library's parser is enough)


class Node:
    def __init__(self, tag: str, attrs: dict, parent: "Node | None"):
        self.tag, self.attrs, self.parent, self.children = tag, attrs, parent, []

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()

    def find_all(self, tag: str | None = None, **attrs) -> list["Node"]:
        return [n for n in self.walk() if (tag is None or n.tag == tag)
                and all(n.attrs.get(k.rstrip("_").replace("_", "-")) == v for k, v in attrs.items())]

    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())


class TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = self.node = Node("#root", {}, None)

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs), self.node)
        self.node.children.append(node)
        if tag not in VOID:
            self.node = node

    def handle_startendtag(self, tag, attrs):
        self.node.children.append(Node(tag, dict(attrs), self.node))

    def handle_endtag(self, tag):
        node = self.node
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.node = node.parent


def parse_page(path: Path) -> Node:
    builder = TreeBuilder()
    builder.feed(path.read_text(encoding="utf-8"))
    return builder.root


def check_page(path: Path) -> Node:
    """The structural checks every page passes: images resolve, glyph references are defined, no
    network reference anywhere."""
    text = path.read_text(encoding="utf-8")
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", text), "the page references the network"
    assert "@import" not in text and "url(http" not in text
    root = parse_page(path)
    defined = {n.attrs["id"] for n in root.walk() if "id" in n.attrs}
    for node in root.find_all("use"):
        assert node.attrs["href"].startswith("#") and node.attrs["href"][1:] in defined, node.attrs["href"]
    for node in [*root.find_all("img"), *root.find_all("video")]:
        src = node.attrs["src"]
        if src.startswith("data:"):
            header, payload = src.split(",", 1)
            assert header.endswith(";base64")
            data = base64.b64decode(payload, validate=True)
            kind = header[5:].split(";")[0]
            assert {"image/png": data[:8] == b"\x89PNG\r\n\x1a\n", "image/svg+xml": b"<svg" in data[:600],
                    "video/mp4": data[4:8] == b"ftyp"}[kind], kind
        else:
            assert (path.parent / unquote(src)).is_file(), src
    return root


def items_of(root: Node) -> dict[str, Node]:
    return {a.attrs["data-id"]: a for a in root.find_all("article")}


def marks_in(article: Node, model: int) -> list[str]:
    """The mark kinds drawn in one model's answer panel of an item."""
    [panel] = [f for f in article.find_all("figure") if f.attrs.get("data-model") == str(model)]
    return [c.removeprefix("mk-") for u in panel.find_all("use") for c in u.classes() if c.startswith("mk-") and c != "mk-outline"]


# --------------------------------------------------------------------------------------------------
# data


def once(key: str, build):
    if key not in BUILT:
        BUILT[key] = build()
    return BUILT[key]


@pytest.fixture(scope="module")
def small(tmp_path_factory, generalization_file) -> dict:
    return once("small", lambda: make_small(tmp_path_factory.mktemp("small"), generalization_file))


def make_small(folder: Path, generalization_file: Path) -> dict:
    """A 7-item prediction dataset (plus one bad record), a perfect answers file and one with a
    wrong direction, a missing hole, an extra hole, an unreadable and a missing answer."""
    by_id = {r["id"]: r for r in read_records(generalization_file)}
    records = [copy.deepcopy(by_id[i]) for i in SMALL_IDS]
    for level, record in enumerate(records):
        record["level"] = 2 + level % 3
    bad = {"id": "PFHP_bad", "foldingTypes": [], "resultHoles": [{"shape": "hexagon", "size": "large", "location": 3}]}
    dataset = folder / "PFHP_Prediction_Data.json"
    dataset.write_text(json.dumps([*records, bad]))
    perfect = [{"id": r["id"], "resultHoles": r["resultHoles"], "totalNumberofHoles": len(r["resultHoles"]),
                "unfoldingTypes": r["unfoldingTypes"]} for r in records]
    flawed = copy.deepcopy(perfect)
    turned = flawed[0]["resultHoles"][0]  # a trapezoid: four direction classes
    turned["direction"] = (turned["direction"] + 90) % 360
    flawed[1]["resultHoles"] = flawed[1]["resultHoles"][1:]  # one hole missing
    taken = {h["location"] for h in flawed[2]["resultHoles"]}
    spare = next(n for n in range(1, 33) if n not in taken)
    flawed[2]["resultHoles"].append({"shape": "circle", "size": "small", "direction": "", "location": spare})
    flawed[3] = {"id": flawed[3]["id"], "response": "I am not sure; the holes look like a smiley."}
    del flawed[4]  # no answer for PFHP_401_shape
    flawed[4]["unfoldingTypes"] = ["V2-B"]  # holes right, codes wrong
    (folder / "perfect.json").write_text(json.dumps(perfect))
    (folder / "flawed.jsonl").write_text("\n".join(json.dumps(a) for a in flawed))
    return {"folder": folder, "dataset": dataset, "perfect": folder / "perfect.json", "flawed": folder / "flawed.jsonl",
            "records": records}


@pytest.fixture(scope="module")
def small_report(small, tmp_path_factory) -> tuple[Path, object]:
    def build():
        out = tmp_path_factory.mktemp("small-report") / "report.html"
        return out, write_report(small["dataset"], [small["perfect"], small["flawed"]], out, names=["oracle", "flawed"])
    return once("small_report", build)


@pytest.fixture(scope="module")
def perturbed_plans(planning_file, tmp_path_factory) -> tuple[Path, dict[str, int]]:
    return once("perturbed_plans", lambda: perturb_plans(planning_file, tmp_path_factory.mktemp("plans")))


def perturb_plans(planning_file: Path, folder: Path) -> tuple[Path, dict[str, int]]:
    """The published plans with the first punch of every 7th item moved to the next location."""
    records = read_records(planning_file)
    moved = {}
    for i, record in enumerate(records):
        if i % 7 == 0:
            record["initialHoles"][0]["location"] = record["initialHoles"][0]["location"] % 32 + 1
            moved[record["id"]] = record["initialHoles"][0]["location"]
    path = folder / "perturbed.json"
    path.write_text(json.dumps(records))
    return path, moved


@pytest.fixture(scope="module")
def planning_report(planning_file, perturbed_plans, tmp_path_factory) -> tuple[Path, object]:
    """The done-when report: the published plans and a perturbed copy, side by side."""
    def build():
        out = tmp_path_factory.mktemp("planning-report") / "planning.html"
        return out, write_report(planning_file, [planning_file, perturbed_plans[0]], out, names=["published", "perturbed"])
    return once("planning_report", build)


# --------------------------------------------------------------------------------------------------
# marks


def _hole(shape, location, direction=0, size="large"):
    return Hole.make(shape, size, direction, location)


def _said(shape, location, *directions, size="large"):
    return PredictedHole(shape, size, location, frozenset(directions))


def test_marks_right_missing_extra_and_direction():
    truth = (_hole("star", 3, 90), _hole("triangle", 7, 0), _hole("circle", 12), _hole("star", 20, 180))
    said = (_said("star", 3, 90), _said("triangle", 7, 180), _said("square", 30), _said("star", 20, 180, 0))
    marks = compare_holes(truth, said)
    kinds = sorted((m.kind, m.location) for m in marks)
    # star 20 named two classes (0 and 180): no single direction, so it is a wrong direction too
    assert kinds == [("direction", 7), ("direction", 20), ("extra", 30), ("match", 3), ("missing", 12)]
    turned = next(m for m in marks if m.location == 7)
    assert (turned.quarter, turned.truth_quarter) == (2, 0)
    assert compare_holes(truth, ()) == tuple(m for m in compare_holes(truth, ()) if m.kind == "missing")
    assert len(compare_holes(truth, ())) == 4


def test_marks_pair_duplicates_and_unplaced_holes():
    truth = (_hole("ellipse", 5, 0), _hole("ellipse", 5, 90))
    said = (_said("ellipse", 5, 270), _said("ellipse", 5, 270), PredictedHole("blob", "huge", None, note="unknown shape"))
    kinds = sorted(m.kind for m in compare_holes(truth, said))
    assert kinds == ["direction", "extra", "match"]
    # the text task ignores directions: both ellipses are right
    assert sorted(m.kind for m in compare_holes(truth, said[:2], with_direction=False)) == ["match", "match"]


def test_right_marks_equal_the_scorers_matched_holes(planning_report, small_report, small):
    """Every item, every model: the holes drawn as right are exactly the scorer's matched count
    (planning: the replayed plans; text: directions ignored)."""
    text = build_report(small["dataset"], [small["flawed"]], task="text")
    assert text.models[0].scores[SMALL_IDS[0]].exact  # a wrong direction does not count in text
    for data in (planning_report[1], small_report[1], text):
        for m, model in enumerate(data.models):
            scores = {s.id: s for s in model.report.items}
            for item in data.items:
                if item.error:
                    continue
                view = item.answers[m]
                drawn = sum(mark.kind == "match" for mark in view.marks)
                assert drawn == scores[item.id].matched, (model.name, item.id)
                if view.verdict == "correct":
                    assert {mark.kind for mark in view.marks} <= {"match"}


# --------------------------------------------------------------------------------------------------
# pages


def test_small_report_shows_every_item_and_its_flaws(small, small_report):
    out, data = small_report
    root = check_page(out)
    items = items_of(root)
    assert set(items) == {*SMALL_IDS, "PFHP_bad"}
    header = [th.attrs.get("data-model") for th in root.find_all("table")[0].find_all("th")]
    assert header.count("0") == 1 and header.count("1") == 1
    first, second, third, fourth, fifth, sixth = (items[i] for i in SMALL_IDS[:6])
    assert set(marks_in(first, 0)) == {"match"} and first.attrs["data-v0"] == "correct"
    assert "direction" in marks_in(first, 1) and first.attrs["data-v1"] == "wrong"
    assert "missing" in marks_in(second, 1)
    assert "extra" in marks_in(third, 1)
    assert fourth.attrs["data-v1"] == "unreadable"
    assert fourth.find_all("pre") and "the holes look like a smiley" in out.read_text()
    assert fifth.attrs["data-v1"] == "missing"
    assert sixth.attrs["data-v1"] == "correct"
    diff = [td for td in sixth.find_all("td") if "diff" in td.classes()]
    assert diff, "the wrong unfolding code is marked"
    # step media drawn on the fly (a small dataset has none in its folder)
    images = first.find_all("img")
    assert len(images) >= 4 and all(i.attrs["src"].startswith("data:image/png") for i in images)
    # the bad record is shown with its error, and reported
    assert any("hexagon" in e for e in data.errors)
    assert "error" in {c for p in items["PFHP_bad"].find_all("p") for c in p.classes()}
    # levels were recorded: a filter and a plot for them
    assert root.find_all("select", name="level")
    plots = [i.attrs["alt"] for i in root.find_all("img") if i.attrs.get("alt", "").startswith("accuracy by")]
    assert "accuracy by level" in plots and "accuracy by action pattern" in plots and "accuracy by rotation" in plots


def test_planning_report_marks_the_moved_punches(planning_report, perturbed_plans):
    out, data = planning_report
    _, moved = perturbed_plans
    root = check_page(out)
    items = items_of(root)
    assert len(items) == 400
    assert [m.name for m in data.models] == ["published", "perturbed"]
    published, perturbed = (m.report.metrics["exact_match"] for m in data.models)
    assert published == pytest.approx(359 / 400) and perturbed < published
    wrong = 0
    for item_id in moved:
        article = items[item_id]
        if article.attrs["data-v0"] == "correct" and article.attrs["data-v1"] != "correct":
            wrong += 1
            assert {"missing", "extra"} & set(marks_in(article, 1)), item_id
            assert set(marks_in(article, 0)) == {"match"}
    assert wrong >= 40
    untouched = [i for i in items if i not in moved]
    assert all(items[i].attrs["data-v0"] == items[i].attrs["data-v1"] for i in untouched)


def test_assets_mode_writes_files_beside_the_page(small_report, tmp_path):
    out = write_page(small_report[1], tmp_path / "page.html", assets=True, draw_limit=0)
    root = check_page(out)
    sources = [i.attrs["src"] for i in root.find_all("img")]
    assert sources and all(s.startswith("page_files/") for s in sources)
    assert len(out.read_bytes()) < 400_000


def test_inline_budget_bounds_the_page(small_report, tmp_path):
    out = write_page(small_report[1], tmp_path / "page.html", inline_budget=20_000)
    root = check_page(out)
    assert "left out to bound the page size" in out.read_text()
    assert sum(len(i.attrs["src"]) for i in root.find_all("img")) < 20_000 * 4 / 3 + 5_000


def test_max_items_bounds_the_browser_not_the_metrics(small, tmp_path):
    data = build_report(small["dataset"], [small["flawed"]], max_items=3)
    out = write_page(data, tmp_path / "page.html")
    assert len(items_of(check_page(out))) == 3
    assert data.models[0].report.counts["items"] == 8  # the unreadable record counts, as a failure
    assert "first 3 of 8" in out.read_text()


def test_browser_finds_dataset_media_and_marks_a_mismatch(small, generalization_file, tmp_path):
    from foldsim.render.images import write_images
    from foldsim.outputs.report.media import DRAWN_STYLE
    from foldsim.mentalblackboard_sheet import SHEET
    from foldsim.trace import trace

    records = copy.deepcopy(small["records"][:3])
    records[1]["resultHoles"][0]["location"] = records[1]["resultHoles"][0]["location"] % 32 + 1
    records[2]["resultImg"] = "../../outside.png"  # never read: outside the dataset folder
    folder = tmp_path / "data"
    write_images(trace(records[0]), folder, records[0]["id"], DRAWN_STYLE, sheet=SHEET)
    (folder / "PFHP_Prediction_Data.json").write_text(json.dumps(records))
    (tmp_path / "outside.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    data = write_browser(folder / "PFHP_Prediction_Data.json", tmp_path / "browse", draw_limit=1)
    root = check_page(tmp_path / "browse" / "index.html")
    items = items_of(root)
    assert list(items) == [r["id"] for r in records]
    found = [i.attrs["src"] for i in items[records[0]["id"]].find_all("img")]
    assert len(found) >= 4 and all(s.startswith("index_files/") for s in found)
    assert not items[records[2]["id"]].find_all("img"), "over the draw limit, nothing found: no images"
    assert items[records[1]["id"]].attrs["data-check"] == "mismatch"
    assert len(data.check_failures) == 1
    simulated = [f for f in items[records[1]["id"]].find_all("figure") if "answer" in f.classes()]
    kinds = {c for u in simulated[0].find_all("use") for c in u.classes()}
    assert {"mk-missing", "mk-extra"} <= kinds or "mk-direction" in kinds


def test_plots_group_order_and_breakdown():
    assert sorted(["10", "2", "FF", "F", "with rotation", "without rotation"], key=group_order) == [
        "2", "10", "without rotation", "with rotation", "F", "FF"]
    chart = breakdown("t", ["a", "b", None, "a"], [[True, False, True, False]], ["m"])
    assert chart.groups == ("a", "b") and chart.counts == (2, 1) and chart.values == ((0.5, 0.0),)
    assert breakdown("t", [None, None], [[True, True]], ["m"]) is None


# --------------------------------------------------------------------------------------------------
# command line


def run_cli(args: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as stop:
        main([str(a) for a in args])
    captured = capsys.readouterr()
    return stop.value.code, captured.out, captured.err


def test_cli_report_and_its_errors(small, tmp_path, capsys):
    out = tmp_path / "r.html"
    code, stdout, stderr = run_cli(["report", small["dataset"], small["perfect"], small["flawed"], "--out", out], capsys)
    assert code == 1, stderr  # the bad record is one error line; the page is written anyway
    assert out.is_file() and "wrote" in stdout
    assert [line for line in stderr.splitlines() if line.startswith("error:")] == [l for l in stderr.splitlines() if l]
    assert "PFHP_bad" in stderr and len(stderr.splitlines()) == 1
    missing = tmp_path / "nope.json"
    code, _, stderr = run_cli(["report", small["dataset"], missing, "--out", tmp_path / "x.html"], capsys)
    assert code == 2 and stderr.startswith("error: ") and len(stderr.splitlines()) == 1 and "nope.json" in stderr
    assert not (tmp_path / "x.html").exists()
    code, _, stderr = run_cli(["report", small["dataset"], small["perfect"], "--out", tmp_path], capsys)
    assert code == 2 and "directory" in stderr
    code, _, stderr = run_cli(["report", small["dataset"], small["perfect"], "--name", "a", "--name", "b", "--out", out], capsys)
    assert code == 2 and "--name" in stderr
    code, _, stderr = run_cli(["report", small["dataset"], small["perfect"], "--task", "colouring", "--out", out], capsys)
    assert code == 2 and "colouring" in stderr


def test_cli_browse(small, tmp_path, capsys):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(small["records"][:2]))
    code, stdout, stderr = run_cli(["browse", good, "--out", tmp_path / "b"], capsys)
    assert code == 0 and stderr == "" and (tmp_path / "b" / "index.html").is_file()
    assert (tmp_path / "b" / "index_files").is_dir()  # drawn step images, as files
    code, _, stderr = run_cli(["browse", tmp_path / "absent.json", "--out", tmp_path / "c"], capsys)
    assert code == 2 and len(stderr.splitlines()) == 1 and not (tmp_path / "c").exists()
    (tmp_path / "file").write_text("")
    code, _, stderr = run_cli(["browse", good, "--out", tmp_path / "file"], capsys)
    assert code == 2 and "is a file" in stderr


# --------------------------------------------------------------------------------------------------
# the choice tasks (scored by foldsim.eval.choice): hand-made records in the generator's format


def _moved(holes: list[dict], step: int = 1) -> list[dict]:
    out = copy.deepcopy(holes)
    out[0]["location"] = (out[0]["location"] + step - 1) % 32 + 1
    return out


def _turned(holes: list[dict]) -> list[dict]:
    out = copy.deepcopy(holes)
    for hole in out:
        if hole["shape"] in ("triangle", "trapezoid", "star", "letter", "text"):
            hole["direction"] = (hole["direction"] + 90) % 360
    return out


def make_choice(folder: Path, generalization_file: Path, planning_file: Path) -> dict:
    """choice (3 items x 2 cue conditions), split rows of two of them, plan-choice (3 items), and
    per task a perfect answers file and an always-A one (one answer naming two letters)."""
    by_id = {r["id"]: r for r in read_records(generalization_file)}
    choice = []
    for n, item_id in enumerate(("PFHP_803_shape", "PFHP_705_shape", "PFHP_401_shape")):
        base = copy.deepcopy(by_id[item_id])
        truth = base["resultHoles"]
        options = [{"label": "A", "resultHoles": _moved(truth), "error": "wrong_crease", "errorDetail": {"step": 1}},
                   {"label": "B", "resultHoles": _turned(truth), "error": "wrong_direction"},
                   {"label": "C", "resultHoles": truth[1:], "error": "missing_layer"},
                   {"label": "D", "resultHoles": _moved(truth, 3), "error": "pattern_turned"}]
        right = "BCD"[n]  # the right answer takes the place of one distractor
        options["ABCD".index(right)] = {"label": right, "resultHoles": truth, "error": None}
        for cue in ("none", "counterfactual"):
            record = {**base, "id": f"C{n}_{cue}", "taskType": "Choice", "options": options, "answer": right,
                      "level": 2 + n}
            record["cue"] = {"kind": "none"} if cue == "none" else {
                "kind": cue, "step": 1, "grid": "1111\n0000", "impliedAnswer": "A"}
            choice.append(record)
    split = []
    for record in choice[:4:2]:  # two items: 8 rows (a kernel batch size other tests compile too)
        for option in record["options"]:
            row = {k: v for k, v in record.items() if k not in ("id", "taskType", "options", "answer")}
            split.append({**row, "id": f"{record['id']}_{option['label']}", "taskType": "Split", "item": record["id"],
                          "option": option["label"], "answer": "yes" if option["label"] == record["answer"] else "no",
                          "optionHoles": option["resultHoles"], "error": option["error"]})
    plans = read_records(planning_file)
    plan_choice = []
    for n, plan in enumerate(plans[300:303]):  # one fold each
        other = plans[301 + n]["foldingTypes"]
        options = [{"label": "A", "foldingTypes": plan["foldingTypes"], "error": None, "producesTarget": True},
                   {"label": "B", "foldingTypes": other, "error": "replaced_fold", "producesTarget": False}]
        plan_choice.append({**plan, "taskType": "PlanChoice", "options": options, "answer": ["A"]})
    files = {}
    for task, records, yes in (("choice", choice, None), ("split", split, "yes"), ("plan-choice", plan_choice, None)):
        dataset = folder / f"{task}.json"
        dataset.write_text(json.dumps(records))
        right = [r["answer"][0] if isinstance(r["answer"], list) else r["answer"] for r in records]
        perfect = [{"id": r["id"], "response": f"Answer: {a}"} for r, a in zip(records, right)]
        always = [{"id": r["id"], "response": yes or "The answer is (A)."} for r in records]
        always[-1] = {"id": records[-1]["id"], "response": "**A** or maybe **C**" if not yes else "yes and no"}
        (folder / f"{task}-perfect.json").write_text(json.dumps(perfect))
        (folder / f"{task}-always.json").write_text(json.dumps(always))
        files[task] = (dataset, folder / f"{task}-perfect.json", folder / f"{task}-always.json")
    return files


@pytest.fixture(scope="module")
def choice_files(tmp_path_factory, generalization_file, planning_file) -> dict:
    return once("choice", lambda: make_choice(tmp_path_factory.mktemp("choice"), generalization_file, planning_file))


def test_choice_report_confusion_cues_and_options(choice_files, tmp_path):
    dataset, perfect, always = choice_files["choice"]
    out = tmp_path / "choice.html"
    data = write_report(dataset, [perfect, always], out, names=["perfect", "always A"], draw_limit=0)
    assert data.task == "choice"  # from the records' taskType
    root = check_page(out)
    text = out.read_text()
    metrics = {m.name: m.report.metrics for m in data.models}
    assert metrics["perfect"]["accuracy"] == 1.0 and metrics["perfect"]["chance"] == pytest.approx(0.25)
    assert "chance" in text and "error-model confusion" in text and "reliance" in text
    alts = [i.attrs.get("alt") for i in root.find_all("img")]
    assert "accuracy by cue condition" in alts and any(a.startswith("error-model confusion") for a in alts)
    items = items_of(root)
    assert set(items) == {r.id for r in data.items} and len(items) == 6
    card = items["C0_none"]  # right answer B: always-A chose the wrong_crease option
    options = [f for f in card.find_all("figure") if "option" in f.classes()]
    assert len(options) == 4 and sum("right" in f.classes() for f in options) == 1
    assert card.attrs["data-v0"] == "correct" and card.attrs["data-v1"] == "wrong"
    chosen = marks_in(card, 1)
    assert "missing" in chosen and "extra" in chosen  # option A moved a hole
    assert "chose A: wrong_crease" in text
    assert items["C2_counterfactual"].attrs["data-v1"] == "unreadable"  # two letters named
    assert "names more than one answer" in text
    assert "cue: counterfactual folded state after step 1, implying A" in text


def test_split_and_plan_choice_reports(choice_files, tmp_path):
    dataset, perfect, always = choice_files["split"]
    data = write_report(dataset, [perfect, always], tmp_path / "split.html", draw_limit=0)
    root = check_page(tmp_path / "split.html")
    assert data.task == "split" and len(items_of(root)) == 8
    assert data.models[0].report.metrics["item_accuracy"] == 1.0
    for article in items_of(root).values():
        assert len([f for f in article.find_all("figure") if "option" in f.classes()]) == 1
    dataset, perfect, always = choice_files["plan-choice"]
    data = write_report(dataset, [perfect, always], tmp_path / "plan.html", draw_limit=0)
    root = check_page(tmp_path / "plan.html")
    assert data.task == "plan-choice"
    for item in data.items:
        right = [o for o in item.options if o.right]
        assert right and {m.kind for m in right[0].marks} == {"match"}  # the published plan replays to its target
        assert item.options[1].detail.startswith("folds ")


def test_hostile_records_and_answers_never_break_the_page(small, tmp_path, capsys):
    """Records that are no objects, lack fields or hold markup and paths in their ids; answers with
    unknown shapes, locations and codes: each bad item is one error line, the page is written,
    every id is escaped, and media land only inside the assets folder."""
    good = copy.deepcopy(small["records"][0])
    fields = {k: good[k] for k in ("foldingTypes", "initialHoles", "resultHoles", "unfoldingTypes")}
    records = [5, "text", None, {}, {"id": "x1", "foldingTypes": "H1-F"}, {"id": "x2", "resultHoles": [{"shape": "star"}]},
               {"id": "../../escape", **fields, "resultImg": "/etc/passwd", "optionImgs": {"A": "../x.png"}},
               {"id": "<script>alert(1)</script>", **fields, "level": "<b>", "cue": "x"}, good]
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "data.json").write_text(json.dumps(records))
    answers = [{"id": "<script>alert(1)</script>", "resultHoles": [
                   {"shape": "blob", "size": "huge", "location": "(9, 9, 9)", "direction": "sideways"},
                   {"shape": "star", "size": "large", "location": 99, "direction": 45}], "unfoldingTypes": ["H9-Q", 5]},
               {"id": good["id"], "response": "```json\n{\"resultHoles\": [}\n```"}, 17, "raw text"]
    (folder / "answers.json").write_text(json.dumps(answers))
    out = folder / "out" / "page.html"
    code, _, stderr = run_cli(["report", folder / "data.json", folder / "answers.json", "--assets", "--out", out], capsys)
    assert code == 1 and len(stderr.splitlines()) == 6 and all(line.startswith("error: ") for line in stderr.splitlines())
    root = check_page(out)
    assert len(items_of(root)) == len(records)
    assert "<script>alert" not in out.read_text()
    code, _, _ = run_cli(["browse", folder / "data.json", "--out", folder / "browse"], capsys)
    assert code == 1
    check_page(folder / "browse" / "index.html")
    assert "<script>alert" not in (folder / "browse" / "index.html").read_text()
    written = {p.relative_to(folder).parts[0] for p in folder.rglob("*") if p.is_file()}
    assert written == {"data.json", "answers.json", "out", "browse"}, written


# --------------------------------------------------------------------------------------------------
# benchmark family items, the open-ended holes task (foldsim generate --family; foldsim.eval.holes)

#: family, level: the sheet sizes test_families_road.py uses (5 x 5 cells named by cell, 1 x 1 named by point)
HOLES_FAMILIES = (("spatialviz", "L2"), ("srbench", "2"))


def make_holes(folder: Path) -> dict:
    """Two generated items per family in one dataset file (records only; the fold steps image of each
    family's first item drawn, the others have none), a perfect answers file and a perturbed one: a
    hole dropped and one added, a hole moved, decimals within the tolerance, an unreadable answer."""
    from foldsim.dataset.family_media import item_images
    from foldsim.families.records import media_fields
    from foldsim.eval.holes import answer_pairs

    records = []
    for name, level in HOLES_FAMILIES:
        with pytest.raises(SystemExit) as stop:
            main(["generate", "--family", name, "--level", level, "--count", "2", "--seed", "0", "--out",
                  str(folder / name), "--no-media"])
        assert stop.value.code == 0
        generated = json.loads((folder / name / f"{name}_items.json").read_text())
        assert "stepsImg" not in generated[0]  # --no-media: the records name no image (issue 18)
        first = generated[0]
        first["stepsImg"] = media_fields(name, first["id"], [o["label"] for o in first["options"]])["stepsImg"]
        (folder / first["stepsImg"]).write_bytes(item_images(first)[first["stepsImg"]])  # drawn now: named
        records += generated
    dataset = folder / "families_items.json"
    dataset.write_text(json.dumps(records))
    perfect = [{"id": r["id"], "response": json.dumps({"holes": answer_pairs(r)})} for r in records]
    perturbed = []
    for k, record in enumerate(records):
        holes = answer_pairs(record)
        cells = record["holeNames"] == "cell"
        if k == 0:  # 5 x 5: the first hole dropped, a hole added in a cell the truth leaves empty
            spare = next([r, c] for r in range(1, 6) for c in range(1, 6) if [r, c] not in holes)
            holes = [*holes[1:], spare]
        elif k == 1:  # 5 x 5: the first hole moved one row down (or up, on the last row)
            row, col = holes[0]
            holes = [[row + 1 if row < 5 else row - 1, col], *holes[1:]]
        elif k == 2:  # 1 x 1: decimals within the tolerance, and one point extra
            holes = [[round(float(Fraction(x)), 4), round(float(Fraction(y)), 4)] for x, y in holes] + [[0.05, 0.95]]
        assert cells == (k < 2)
        perturbed.append({"id": record["id"], "response": "no idea" if k == 3 else json.dumps({"holes": holes})})
    (folder / "perfect.jsonl").write_text("".join(json.dumps(a) + "\n" for a in perfect))
    (folder / "perturbed.jsonl").write_text("".join(json.dumps(a) + "\n" for a in perturbed))
    return {"dataset": dataset, "perfect": folder / "perfect.jsonl", "perturbed": folder / "perturbed.jsonl",
            "records": records}


@pytest.fixture(scope="module")
def holes_report(tmp_path_factory) -> tuple[Path, object, dict]:
    """The holes task's report of the family items: a perfect and a perturbed model side by side."""
    def build():
        files = make_holes(tmp_path_factory.mktemp("holes"))
        out = tmp_path_factory.mktemp("holes-report") / "holes.html"
        data = write_report(files["dataset"], [files["perfect"], files["perturbed"]], out, task="holes",
                            names=["perfect", "perturbed"])
        return out, data, files
    return once("holes_report", build)


def circles_in(article: Node, model: int | None) -> list[str]:
    """The mark kinds drawn as circles on a family sheet: one model's panel, or the truth panel (None)."""
    [panel] = [f for f in article.find_all("figure") if f.attrs.get("data-model") == (None if model is None else str(model))
               and ("truth" in f.classes() or model is not None)]
    return [c.removeprefix("mk-") for u in panel.find_all("circle") for c in u.classes() if c.startswith("mk-")]


def test_holes_report_on_family_items(holes_report):
    """Both models' scores side by side, each item's general sheet with the result holes and every
    answer's holes marked right / extra / missing as the scorer counts them, the fold steps image."""
    from foldsim.eval.holes import score_holes_files

    out, data, files = holes_report
    root = check_page(out)
    text = out.read_text()
    records = files["records"]
    header = [th for th in root.find_all("th") if th.attrs.get("data-model") is not None]
    assert [h.attrs["data-model"] for h in header[:2]] == ["0", "1"] and "perfect" in text and "perturbed" in text
    perfect, perturbed = (score_holes_files(files["dataset"], files[k]) for k in ("perfect", "perturbed"))
    assert perfect.metrics["exact_match"] == 1.0 and perturbed.metrics["exact_match"] == 0.0
    assert "exact match" in text and "field row" in text and "field x" in text
    for name in ("partial", "field_col", "field_y"):
        assert f"{100 * perturbed.metrics[name]:.1f} %" in text, name
    items = items_of(root)
    assert list(items) == [r["id"] for r in records]
    units = {u.id: u for u in perturbed.items}
    for k, record in enumerate(records):
        article = items[record["id"]]
        assert circles_in(article, None) == ["truth"] * len(record["resultHoles"])
        assert circles_in(article, 0) == ["match"] * len(record["resultHoles"])
        kinds = circles_in(article, 1)
        assert kinds.count("match") == units[record["id"]].matched  # the drawing is the scorer's matching
        assert kinds.count("extra") == {0: 1, 1: 1, 2: 1, 3: 0}[k]
        assert kinds.count("missing") == {0: 1, 1: 1, 2: 0, 3: len(record["resultHoles"])}[k]
    first = items[records[0]["id"]]
    scores = [p for p in first.find_all("p") if "scores" in p.classes()]
    assert len(scores) == 2  # one line per model: exact, partial, the fields
    said = article_source(text, records[0]["id"])
    assert "exact yes · partial 100.0 % · row 100.0 % · col 100.0 %" in said and "exact no" in said
    assert "exact yes · partial 100.0 % · x 100.0 % · y 100.0 %" in article_source(text, records[2]["id"])
    assert "v-unreadable" in article_source(text, records[3]["id"])
    steps = [i for i in first.find_all("img") if i.attrs.get("alt") == "fold steps and punch"]
    assert len(steps) == 1 and steps[0].attrs["src"].startswith("data:image/png")
    assert not [i for a in items.values() for i in a.find_all("img") if i.attrs.get("alt") != "fold steps and punch"]
    assert "no fold steps image" in article_source(text, records[1]["id"])
    assert 'data-level="spatialviz L2"' in text and 'data-level="srbench 2"' in text
    assert data.errors == [] and "sheet 5 × 5 · holes by cell" in text and "sheet 1 × 1 · holes by point" in text



def article_source(text: str, item_id: str) -> str:
    """The HTML of one item card."""
    start = text.index(f'<article class="item" id="item-')
    start = text.index(f'data-id="{item_id}"', start)
    return text[start:text.index("</article>", start)]
