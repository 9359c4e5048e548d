"""The recording model's registration (entry point group `lmms_eval.models`)."""


def manifest():
    from lmms_eval.models.registry_v2 import ModelManifest

    return ModelManifest(model_id="foldsim_recorder",
                         chat_class_path="foldsim_harness_plugin.models.foldsim_recorder.FoldsimRecorder")
