"""Copied by `make test-harness` (tests/harness/run.py) into its own VLMEvalKit venv only, and loaded at
interpreter start by a .pth file there.

torchvision on PyPI is the CUDA build: beside the CPU torch wheel its C++ ops do not load, and
torchvision then fails at import, registering fake kernels for two ops that were never defined
("operator torchvision::nms does not exist"). VLMEvalKit imports torchvision when it loads. When
torchvision's own extension cannot be loaded, the schemas of those two ops are defined here, before
torchvision is imported, so the import succeeds; the ops are never called by the harness checks
(they would raise: no kernel). When the extension loads, nothing is done.
"""
try:
    import importlib.util
    from pathlib import Path

    import torch

    spec = importlib.util.find_spec("torchvision")
    extension = next(Path(spec.origin).parent.glob("_C*.so"), None) if spec and spec.origin else None
    try:
        torch.ops.load_library(str(extension)) if extension else None
        loaded = extension is not None
    except OSError:
        loaded = False
    if not loaded:
        library = torch.library.Library("torchvision", "DEF")
        library.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        library.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
except Exception:  # noqa: BLE001 (the shim must never break an interpreter start)
    pass
