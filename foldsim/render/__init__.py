"""foldsim.render: the benchmark's views of an item, all drawn from a `foldsim.trace.Trace`.

    text        text grids (`<id>_textual_steps.txt`, `<id>_textual_final_result.txt`)
    images      2-D step images (Pillow) and the numbered sheet
    shapes      hole outlines as 2-D polygons (shared by the images and the 3-D animation)
    animation   3-D folding/unfolding videos

General items (`foldsim.sheets`, any sheet): `items` (3-D frames and videos through the same
renderer), `item_images` (2-D step images), both on `item_geometry` (docs/engine.md, Rendering).

Cube nets (`foldsim.nets`): `net_images` (the flat net and cube views, Pillow) and `nets` (3-D frames
and MP4s of a net folding, through the same renderer; docs/nets.md, Pictures and motion).
"""

from .images import numbered_sheet_image, step_images, write_images, write_numbered_sheet
from .shapes import SIZE_SCALE, fan_triangles, hole_polygons
from .text import final_text, grid_text, steps_text, write_text

#: the 3-D renderer's exports, imported on first use: pyrender and EGL cost ~2 s to load
_ANIMATION = ("AnimationOptions", "folding_frames", "unfolding_frames", "render_frame", "result_image", "write_videos")
#: general items' media, imported on first use as well
_ITEMS = ("render_item_video", "write_item_media", "item_folding_frames", "item_unfolding_frames", "item_result_image",
          "render_item_frame")
_ITEM_IMAGES = ("item_step_images", "write_item_images")

__all__ = [
    "numbered_sheet_image", "step_images", "write_images", "write_numbered_sheet",
    "SIZE_SCALE", "fan_triangles", "hole_polygons",
    "final_text", "grid_text", "steps_text", "write_text", *_ANIMATION, *_ITEMS, *_ITEM_IMAGES,
]


def __getattr__(name: str):
    if name in _ANIMATION:
        from . import animation

        return getattr(animation, name)
    if name in _ITEMS:
        from . import items

        return getattr(items, name)
    if name in _ITEM_IMAGES:
        from . import item_images

        return getattr(item_images, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
