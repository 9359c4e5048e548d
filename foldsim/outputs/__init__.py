"""The ways out of foldsim for results: the harness exports (`foldsim export`: Hugging Face datasets,
VLMEvalKit, lmms-eval; foldsim.outputs.export with its harness templates) and the report page
(`foldsim report`; foldsim.outputs.report). The top layer below the CLI: it may import eval, dataset,
families, render and the model; nothing but the CLI imports it (docs/development.md, Architecture)."""
