"""mkdocs hooks for the foldsim site (named in mkdocs.yml; not a page).

- Pages that other work adds (OPTIONAL) stay out of the nav until their file exists, so the strict
  build passes before and after they land.
- The benchmark figure is read from benchmarks/scaling.png, where `make bench` writes it, so the
  site never shows a stale copy.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.structure.files import File

OPTIONAL = {"engine.md", "families.md"}
FROM_REPO = {"scaling.png": Path("benchmarks") / "scaling.png"}


def _prune(items, docs_dir: Path):
    kept = []
    for item in items:
        if isinstance(item, dict):
            (title, value), = item.items()
            if isinstance(value, list):
                value = _prune(value, docs_dir)
                if value:
                    kept.append({title: value})
                continue
            if value in OPTIONAL and not (docs_dir / value).exists():
                continue
        elif isinstance(item, str) and item in OPTIONAL and not (docs_dir / item).exists():
            continue
        kept.append(item)
    return kept


def on_config(config, **kwargs):
    config["nav"] = _prune(config["nav"], Path(config["docs_dir"]))
    return config


def on_files(files, config, **kwargs):
    root = Path(config["config_file_path"]).parent
    for name, source in FROM_REPO.items():
        files.append(File(name, str(root / source.parent), config["site_dir"], config["use_directory_urls"]))
    return files
