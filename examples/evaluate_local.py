"""The evaluation road from Python: prompts for your own loop, scores for your own answers, and a
whole run against a local OpenAI-compatible server (vLLM, SGLang, llama.cpp...).

    python -m examples.evaluate_local                       # offline: prompts and score_item
    python -m examples.evaluate_local http://localhost:8000 MODEL   # plus a real run and its score

It generates four prediction items with 2-D step images into eval-example/ (kept between runs),
prints the first prompt as text (media as [image: path]), scores a hand-made answer with
`score_item`, and, given a server, asks it about every item and prints the headline metrics.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from foldsim.dataset.generate import GenerateOptions, write_dataset
from foldsim.dataset.media import MediaRequest
from foldsim.eval import Endpoint, RequestOptions, build_messages, evaluate, score_item

OUT = Path("eval-example")


def main(argv: list[str]) -> int:
    data, records, _ = write_dataset(GenerateOptions("prediction", ("two_step", "two_step_with_rotation"), 2, seed=5),
                                     OUT / "data", MediaRequest.of(images=True, text=True))
    record = records[0]
    messages = build_messages(record, "prediction", "images", dataset_dir=data.parent)
    print(messages[-1].preview()[:900], "...\n")

    answer = "```json\n" + json.dumps({"unfoldingTypes": record["unfoldingTypes"],
                                       "resultHoles": record["resultHoles"][:1]}) + "\n```"
    scores = score_item("prediction", record, answer)
    print(f"one hole of {len(record['resultHoles'])} right: exact {scores['exact_match']}, "
          f"partial {scores['partial']:.2f}, unfolding {scores['unfolding_exact']}")

    if len(argv) == 2:
        url, model = argv
        result = evaluate(data, "prediction", "images", OUT / "run", endpoint=Endpoint(url, concurrency=4),
                          options=RequestOptions(model, max_tokens=4096))
        print(f"{model}: exact match {result.score.metrics['exact_match']:.2%}, partial "
              f"{result.score.metrics['partial']:.2%}; report in {result.score_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
