"""Cue tests (issue 9, item 5): every item once per cue condition with the same options; a true cue
is the folded state after step k, a counterfactual one the state after another realizable fold at
step k, and what that cue implies is the simulator's result and one of the options; the score
report gives accuracy per condition and the cue reliance."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from PIL import Image

from foldsim import Config, simulate
from foldsim.codes import code_of_entry
from foldsim.dataset.choice import ChoiceSpec
from foldsim.dataset.generate import GenerateOptions, generate_records
from foldsim.eval.choice import score_choice_files
from foldsim.mentalblackboard_sheet import SHEET
from foldsim.holes import parse_holes
from foldsim.render.choice import render_choice_media
from foldsim.render.text import grid_chars, grid_text
from foldsim.trace import trace

CUES = ("none", "true", "counterfactual")
GROUPS = ("two_step", "four_step_with_rotation")


@pytest.fixture(scope="module")
def choice() -> list[dict]:
    return generate_records(GenerateOptions("choice", GROUPS, 4, 11, choice=ChoiceSpec(cues=CUES)))


def by_item(records: list[dict]) -> dict[str, list[dict]]:
    items: dict[str, list[dict]] = {}
    for record in records:
        items.setdefault(record["id"].rsplit("_c", 1)[0], []).append(record)
    return items


def codes(entries) -> list[str]:
    return [code_of_entry(e) for e in entries]


def test_each_item_appears_once_per_condition_with_the_same_options(choice):
    items = by_item(choice)
    assert len(items) == 8 and len(choice) == 24
    for item, records in items.items():
        assert [r["id"] for r in records] == [f"{item}_c0", f"{item}_c1", f"{item}_c2"]
        assert [r["cue"]["kind"] for r in records] == list(CUES)
        assert all(r["options"] == records[0]["options"] and r["answer"] == records[0]["answer"] for r in records)
        assert records[1]["cue"]["step"] == records[2]["cue"]["step"]


def test_the_true_cue_is_the_state_after_step_k(choice):
    for record in choice:
        cue = record["cue"]
        if cue["kind"] != "true":
            continue
        k = cue["step"]
        assert codes(cue["foldingTypes"]) == codes(record["foldingTypes"])[:k]
        assert cue["impliedAnswer"] == record["answer"]
        history = trace(Config.from_record(record))
        assert cue["grid"] == grid_text(grid_chars(history.paper(k)), sheet=SHEET)


def test_the_counterfactual_cue_implies_an_option_the_simulator_computes(choice):
    for record in choice:
        cue = record["cue"]
        if cue["kind"] != "counterfactual":
            continue
        k, actions = cue["step"], codes(record["foldingTypes"])
        shown = codes(cue["foldingTypes"])
        assert len(shown) == k and shown[: k - 1] == actions[: k - 1] and shown[-1] != actions[k - 1]
        assert not shown[-1].startswith("R-") and shown[-1][-1] == actions[k - 1][-1]
        counterfactual = Config(tuple(shown + actions[k:]), Config.from_record(record).holes)
        [result] = simulate([counterfactual])  # the cue's world, re-simulated here
        assert result.ok
        [implied] = [o for o in record["options"] if o["label"] == cue["impliedAnswer"]]
        assert implied["error"] == "replaced_fold" and implied["errorDetail"]["step"] == k
        assert Counter(h.key for h in result.holes) == Counter(h.key for h in parse_holes(implied["resultHoles"], "h"))
        assert implied["label"] != record["answer"]
        prefix = trace(Config.from_codes(shown))
        assert cue["grid"] == grid_text(grid_chars(prefix.paper(k)), sheet=SHEET)


def test_accuracy_per_condition_and_cue_reliance(choice, tmp_path):
    truth = tmp_path / "truth.json"
    truth.write_text(json.dumps(choice))
    # a model that copies the cue: right without a cue or with a true one, follows a counterfactual one
    follows = [{"id": r["id"], "response": f"Answer: {r['cue'].get('impliedAnswer', r['answer'])}"} for r in choice]
    (tmp_path / "follows.json").write_text(json.dumps(follows))
    report = score_choice_files("choice", truth, tmp_path / "follows.json")
    assert report.cues["accuracy_none"] == 1.0 and report.cues["accuracy_true"] == 1.0
    assert report.cues["accuracy_counterfactual"] == 0.0 and report.cues["reliance"] == 1.0
    assert report.confusion["replaced_fold"]["chosen"] == 8
    # a model that ignores cues
    (tmp_path / "ignores.json").write_text(json.dumps([{"id": r["id"], "response": r["answer"]} for r in choice]))
    report = score_choice_files("choice", truth, tmp_path / "ignores.json")
    assert report.cues["reliance"] == 0.0 and report.cues["accuracy_counterfactual"] == 1.0
    assert report.groups["cue"]["counterfactual"]["items"] == 8


def test_split_rows_carry_the_cue_and_reliance_reads_the_implied_row(tmp_path):
    rows = generate_records(GenerateOptions("split", ("two_step",), 3, 11, choice=ChoiceSpec(options=3, cues=CUES)))
    assert len(rows) == 3 * 3 * 3
    counterfactual = [r for r in rows if r["cue"]["kind"] == "counterfactual"]
    assert sum(r["cue"]["impliedAnswer"] == "yes" for r in counterfactual) == 3
    yes_to_cue = [{"id": r["id"], "response": r["cue"]["impliedAnswer"] if r["cue"]["kind"] == "counterfactual"
                   else r["answer"]} for r in rows]
    (tmp_path / "t.json").write_text(json.dumps(rows))
    (tmp_path / "a.json").write_text(json.dumps(yes_to_cue))
    report = score_choice_files("split", tmp_path / "t.json", tmp_path / "a.json")
    assert report.cues["reliance"] == 1.0 and report.cues["reliance_judged"] == 3
    assert report.cues["accuracy_none"] == 1.0 and report.cues["accuracy_counterfactual"] == pytest.approx(1 / 3)


def test_cue_media_are_named_neutrally(choice, tmp_path):
    record = next(r for r in choice if r["cue"]["kind"] == "counterfactual")
    files = render_choice_media(record, tmp_path, ("images", "text"), sheet=SHEET)
    names = [f.relative_to(tmp_path).as_posix() for f in files]
    assert record["cueImg"] in names and not any("counterfactual" in n for n in names)
    assert record["cueImg"].endswith(f"{record['id']}_cue.png")
    text = (tmp_path / f"img_text_outputs/{record['id']}/text/{record['id']}_textual_cue.txt").read_text()
    assert record["cue"]["grid"] in text and f"after step {record['cue']['step']}" in text
    cue = np.asarray(Image.open(tmp_path / record["cueImg"]).convert("L"))
    dark = (cue < 60).mean()
    folded_share = record["cue"]["grid"].count("0") / 32
    assert abs(dark - folded_share * 0.8) < 0.25  # the picture shows the cue's folded region
