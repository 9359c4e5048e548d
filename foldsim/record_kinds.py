"""Which engine answers a record, told by its fields, and the answers of the kinds `foldsim.simulate`
does not know (docs/cutting.md, "Commands"; docs/nets.md, "Commands").

One rule, for `simulate`, `fold` and `render-item` alike, applied to a JSON object in this order:

1. it has `cells`: a cube net (`foldsim.nets.net_from_record`);
2. else it has `cuts`: a fold-and-cut item on a polygon sheet (`foldsim.cutfold.cut_item_from_record`);
3. else what `foldsim.simulate` reads: a general item (a `sheet`, or a family record's `item` with
   one) or a MentalBlackboard record.

A net's `cuts` (edges left unhinged) never makes it a fold-and-cut item: `cells` decides first. A
general item has `actions` and `punches`, never `cuts`, and a MentalBlackboard record neither.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cutfold import CutItem, CutResult, cut_item, cut_item_from_record
from .errors import InputError, debugging, internal_error_text
from .io import item_label
from .nets import REASON_TEXT, FoldedNet, Net, fold_nets, net_from_record

KIND_NET = "net"
KIND_CUT = "cut"
KIND_OTHER = "other"  # foldsim.simulate's: general items and MentalBlackboard records
STATUS_OK = "ok"
STATUS_INVALID = "invalid"


def record_kind(record: object) -> str:
    """KIND_NET, KIND_CUT or KIND_OTHER by the rule of the module docstring."""
    if isinstance(record, dict):
        if "cells" in record:
            return KIND_NET
        if "cuts" in record:
            return KIND_CUT
    return KIND_OTHER


def named(error: InputError, index: int, name: str) -> InputError:
    """`error` naming an id-less record by `name` (its JSON Lines line, "line 4") where the reader
    called it by its place ("item 3", `foldsim.io.item_label`)."""
    if error.item in (None, item_label(None, index)):
        return InputError(error.message, item=name, field=error.field)
    return error


def read_cut_item(record: object, index: int, name: str) -> CutItem:
    """The CutItem of a record; InputError naming the item (by `name` when it has no id)."""
    try:
        item = cut_item_from_record(record, index=index)
    except InputError as error:
        raise named(error, index, name) from None
    return item if item.id != item_label(None, index) else CutItem(item.sheet, item.steps, item.cuts, name)


def read_net(record: object, index: int, name: str) -> Net:
    """The Net of a record; InputError naming the item (by `name` when it has no id)."""
    try:
        return net_from_record(record, index=index)
    except InputError as error:
        raise named(error, index, name) from None


def invalid_answer(name: str, error: Exception) -> dict:
    """The answer of a record that cannot be read: an InputError's one line, or (a bug, not the
    data's fault) an internal error of this item; re-raised under FOLDSIM_DEBUG."""
    if not isinstance(error, InputError):
        if debugging():
            raise error
        return {"id": name, "status": STATUS_INVALID, "reason": f"{name}: {internal_error_text(error)}"}
    return {"id": error.item or name, "status": STATUS_INVALID, "reason": str(error if error.item else error.at(item=name))}


def cut_answer(result: CutResult) -> dict:
    """A fold-and-cut item's answer: `CutResult.to_json` (status ok, not_realizable or off_paper)."""
    return result.to_json()


def net_answer(folded: FoldedNet, name: str) -> dict:
    """A net's answer: status ok (a net that does not fold is an answer, not an error), whether it
    folds into the cube, why not (`foldsim.nets` reasons), where each face lands and the map of
    opposite faces."""
    return {"id": folded.net.id if folded.net.id is not None else name, "status": STATUS_OK, "valid": folded.valid,
            "validity": folded.reason, "validityText": REASON_TEXT[folded.reason],
            "faces": [{"label": f.label, "side": f.side, "turn": f.turn, "mirror": f.mirror} for f in folded.faces],
            "opposite": dict(folded.opposite)}


def answer_cuts_and_nets(records: Sequence[object], indices: Sequence[int], names: Sequence[str]) -> dict[int, dict]:
    """index -> answer for the records `indices` of a batch (each KIND_CUT or KIND_NET; `names`: how
    errors name every record of the batch). The nets fold in one batched engine call; one bad
    record is its own `invalid` answer and never stops the others."""
    answers: dict[int, dict] = {}
    nets: dict[int, Net] = {}
    for i in indices:
        try:
            if record_kind(records[i]) == KIND_NET:
                nets[i] = read_net(records[i], i, names[i])
            else:
                answers[i] = cut_answer(cut_item(read_cut_item(records[i], i, names[i])))
        except Exception as error:  # noqa: BLE001  (one item's failure, whatever it is, is that item's)
            answers[i] = invalid_answer(names[i], error)
    if nets:
        for i, folded in zip(nets, fold_nets(list(nets.values())), strict=True):
            answers[i] = net_answer(folded, names[i])
    return answers


def simulate_answers(records: Sequence[object]) -> list[dict]:
    """One JSON answer per record of a batch, in order: nets and fold-and-cut items here, the rest
    through `foldsim.simulate.simulate` (a batch of those alone goes there unchanged). Id-less
    records are named as `simulate` names them (their JSON Lines line, else their place in the
    whole batch)."""
    from .io import Records
    from .simulate import record_positions, simulate

    kinds = [record_kind(r) for r in records]
    if all(kind == KIND_OTHER for kind in kinds):
        return [r.to_json() for r in simulate(records)]
    names = record_positions(records, len(records))
    answers = answer_cuts_and_nets(records, [i for i, k in enumerate(kinds) if k != KIND_OTHER], names)
    rest = [i for i, k in enumerate(kinds) if k == KIND_OTHER]
    if rest:
        others = Records()
        others.extend(records[i] for i in rest)
        others.positions = [names[i] for i in rest]
        answers.update(zip(rest, (r.to_json() for r in simulate(others)), strict=True))
    return [answers[i] for i in range(len(records))]
