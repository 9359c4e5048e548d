"""`datasets` at the lowest version foldsim declares (run in the dslow venv by tests/harness/run.py):
the hf and lmms-eval exports are written with it and load with it (typed features, PIL images,
every split), and the true answers score 1.0.

    python datasets_check.py VERSION DATASET_DIR WORK_DIR
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import check, main_guard, records, report  # noqa: E402


def main() -> None:
    import datasets
    from PIL import Image

    from foldsim.outputs.export import hf_features
    from foldsim.eval.item import score_item

    version, dataset, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    def release(text):
        parts = [int(x) for x in text.split("+")[0].split(".")]
        while parts and parts[-1] == 0:
            parts.pop()
        return parts

    check(release(datasets.__version__) == release(version), f"datasets {datasets.__version__} is installed, not {version}")
    work.mkdir(parents=True, exist_ok=True)
    truth = records(dataset)
    lines = []
    for fmt, modality in (("hf", "images"), ("lmms-eval", "video")):
        out = work / f"{fmt}_{modality}"
        done = subprocess.run([sys.executable, "-m", "foldsim.cli", "export", str(dataset), "--format", fmt, "--task",
                               "prediction", "--modality", modality, "--out", str(out), "--workers", "1"],
                              capture_output=True, text=True)
        check(done.returncode == 0, f"export {fmt} under datasets {version} exited {done.returncode}: {done.stderr[-2000:]}")
        loaded = datasets.load_dataset(str(out), f"prediction_{modality}")
        check(sorted(loaded) == sorted({r["split"] for r in truth.values()}), f"splits {sorted(loaded)}")
        for split, rows in loaded.items():
            check(rows.features == hf_features(), f"{fmt}: features {rows.features}")
            for row in rows:
                check(all(isinstance(i, Image.Image) for i in row["images"]), "images are not PIL")
                metrics = score_item(row["scorer"], json.loads(row["record"]), row["answer"])
                check(metrics["exact_match"] == 1.0, f"{row['id']}: the true answer scores {metrics['exact_match']}")
        lines.append(f"datasets {version}: {fmt} {modality} export written and loaded "
                     f"({', '.join(f'{s} {len(r)}' for s, r in loaded.items())}), true answers 1.0")
    report("datasets", lines)


if __name__ == "__main__":
    main_guard("datasets", main)
