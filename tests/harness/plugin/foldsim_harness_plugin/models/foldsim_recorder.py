"""A chat model for lmms-eval that records what it is handed and answers truthfully.

For every request it calls the task's doc_to_messages as lmms-eval's own chat models do, writes
one JSON line per request to `record` (task, split, doc id, item id, and the message content as
parts: text, image with its size and a pixel digest, video with its path), and answers with the
document's `answer` column (mode=truthful) or a fixed wrong answer (mode=wrong).

    lmms-eval --model foldsim_recorder \
        --model_args record=/tmp/rec.jsonl,mode=truthful --include_path EXPORT/lmms_eval --tasks ...
"""

import hashlib
import json

from lmms_eval.api.model import lmms
from lmms_eval.protocol import ChatMessages


def image_digest(image):
    rgb = image.convert("RGB")
    return hashlib.sha256(rgb.tobytes()).hexdigest()[:16]


class FoldsimRecorder(lmms):
    is_simple = False  # a chat model: lmms-eval hands it doc_to_messages

    def __init__(self, record="recorded.jsonl", mode="truthful", **kwargs):
        super().__init__()
        self.record = record
        self.mode = mode

    def _content(self, messages):
        checked = ChatMessages(messages=messages)  # lmms-eval's own message model validates the shape
        parts = []
        for message in checked.messages:
            for content in message.content:
                if content.type == "text":
                    parts.append({"type": "text", "text": content.text})
                elif content.type == "image":
                    parts.append({"type": "image", "size": list(content.url.size), "digest": image_digest(content.url)})
                else:
                    parts.append({"type": content.type, "url": str(content.url)})
        return [m.role for m in checked.messages], parts

    def generate_until(self, requests):
        answers = []
        with open(self.record, "a", encoding="utf-8") as handle:
            for request in requests:
                _, doc_to_messages, gen_kwargs, doc_id, task, split = request.args
                doc = self.task_dict[task][split][doc_id]
                roles, parts = self._content(doc_to_messages(doc))
                handle.write(json.dumps({"task": task, "split": split, "doc_id": doc_id, "id": doc["id"],
                                         "roles": roles, "parts": parts}) + "\n")
                answers.append(doc["answer"] if self.mode == "truthful" else "I cannot tell.")
        return answers

    def loglikelihood(self, requests):
        raise NotImplementedError("foldsim tasks are generate_until")

    def generate_until_multi_round(self, requests):
        raise NotImplementedError("foldsim tasks are single-round")
