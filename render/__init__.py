"""foldsim.render: the benchmark's views of an item, all drawn from a `foldsim.trace.Trace`.

    text        text grids (`<id>_textual_steps.txt`, `<id>_textual_final_result.txt`)
    images      2-D step images (Pillow) and the numbered sheet
    shapes      hole outlines as 2-D polygons (shared by the images and the 3-D animation)
    animation   3-D folding/unfolding videos
"""

from .images import numbered_sheet_image, step_images, write_images, write_numbered_sheet
from .shapes import SIZE_SCALE, fan_triangles, hole_polygons
from .text import final_text, grid_text, steps_text, write_text

#: the 3-D renderer's exports, imported on first use: pyrender and EGL cost ~2 s to load
_ANIMATION = ("AnimationOptions", "folding_frames", "unfolding_frames", "render_frame", "result_image", "write_videos")

__all__ = [
    "numbered_sheet_image", "step_images", "write_images", "write_numbered_sheet",
    "SIZE_SCALE", "fan_triangles", "hole_polygons",
    "final_text", "grid_text", "steps_text", "write_text", *_ANIMATION,
]


def __getattr__(name: str):
    if name in _ANIMATION:
        from . import animation

        return getattr(animation, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
