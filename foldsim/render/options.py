"""How the 3-D animation looks and how long it runs (`AnimationOptions`), apart from the renderer
(foldsim.render.scene) and the timeline that reads them (foldsim.render.animation): both import
this module, neither the other."""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..errors import InputError

Colour = tuple[int, int, int]
CADENCES = ("smooth", "reference")
CAPTION_STYLES = ("codes", "words", "none")


@dataclass(frozen=True)
class AnimationOptions:
    """How the 3-D animation looks and how long it runs. Defaults: the smooth cadence, cheap on a
    CPU (llvmpipe); `AnimationOptions.preset("reference")` gives the benchmark generator's."""

    width: int = 640  # even sizes keep yuv420p MP4s widely playable
    height: int = 480
    fps: int = 24  # the folding video's (and the unfolding video's unless unfolding_fps is set)
    unfolding_fps: int | None = None
    cadence: str = "smooth"  # smooth | reference (see the module docstring)
    captions: str = "codes"  # codes ("Fold 1/2: D1-F diagonal ...") | words (no codes) | none
    seconds_per_action: float = 1.0  # smooth cadence: also the length of the punch
    hold_seconds: float = 0.5  # smooth cadence: still frames on the initial sheet, before unfolding, on the result
    camera_distance: float = 8.0  # sheet units (the sheet is 4 wide)
    camera_elevation: float = 60.0  # degrees above the sheet's plane; 90 looks straight down
    camera_azimuth: float = 0.0  # degrees about the sheet's normal; 0 = standing at its bottom edge
    camera_fov: float = 45.0  # vertical field of view, degrees
    front_colour: Colour = (236, 230, 212)  # warm paper
    back_colour: Colour = (150, 186, 230)  # pale blue, so a turned-over flap reads at a glance
    background_colour: Colour = (24, 24, 30)  # holes show this colour too
    crease_colour: Colour = (20, 20, 20)
    caption_colour: Colour = (240, 240, 240)
    label_colour: Colour = (220, 30, 30)  # the result image's triangle ids
    caption_size: float = 0.045  # caption height as a fraction of the frame height
    ambient_light: float = 0.3
    light_intensity: float = 2.5
    result_labels: bool = True  # red triangle ids on the result image (MentalBlackboard's 1..32, like the reference's)

    def __post_init__(self) -> None:
        """Reject options ffmpeg or the renderer would fail on later, naming the field."""
        for name in ("width", "height"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 2 or value % 2:
                raise InputError(f"must be an even number of pixels >= 2 (H.264 needs it), got {value!r}", field=name)
        for name in ("fps", "unfolding_fps"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                raise InputError(f"must be a positive integer, got {value!r}", field=name)
        for name in ("seconds_per_action", "hold_seconds", "camera_distance", "camera_fov"):
            if not getattr(self, name) > 0:
                raise InputError(f"must be positive, got {getattr(self, name)!r}", field=name)
        self._check_bounds()
        if not 0 < self.camera_elevation <= 90:
            raise InputError(f"must be in (0, 90] degrees, got {self.camera_elevation!r}", field="camera_elevation")
        for name, allowed in (("cadence", CADENCES), ("captions", CAPTION_STYLES)):
            if getattr(self, name) not in allowed:
                raise InputError(f"must be one of {', '.join(allowed)}, got {getattr(self, name)!r}", field=name)

    def _check_bounds(self) -> None:
        """The media bounds of foldsim.limits (frame side, fps, frames per action and per hold),
        refused before any frame is drawn: past them a frame or an item's textures exhaust memory."""
        from ..limits import MAX_FPS, MAX_FRAME_SIDE, MAX_FRAMES_PER_ACTION

        for name in ("width", "height"):
            if getattr(self, name) > MAX_FRAME_SIDE:
                raise InputError(f"at most {MAX_FRAME_SIDE} pixels (limits.MAX_FRAME_SIDE), got {getattr(self, name)}",
                                 field=name)
        for name in ("fps", "unfolding_fps"):
            if (getattr(self, name) or 0) > MAX_FPS:
                raise InputError(f"at most {MAX_FPS} (limits.MAX_FPS), got {getattr(self, name)}", field=name)
        fastest = max(self.fps, self.unfolding_fps or 0)
        for name in ("seconds_per_action", "hold_seconds"):
            frames = fastest * getattr(self, name)  # a float: inf and 1e300 are compared, never rounded
            if not frames <= MAX_FRAMES_PER_ACTION:
                raise InputError(f"{getattr(self, name)!r} s at {fastest} frames per second is {frames:.4g} frames, "
                                 f"more than {MAX_FRAMES_PER_ACTION} (limits.MAX_FRAMES_PER_ACTION)", field=name)

    @classmethod
    def preset(cls, cadence: str = "smooth", **overrides: object) -> "AnimationOptions":
        """The options of a cadence, with `overrides` on top: `smooth` is the class defaults;
        `reference` also sets 2 fps folding / 3 fps unfolding, the camera straight down (and a little
        closer, so the sheet fills the frame as in the reference's cropped screenshots) and captions in
        words (codes would name the answer's vocabulary)."""
        base = {"fps": 2, "unfolding_fps": 3, "camera_elevation": 90.0, "camera_distance": 6.5,
                "captions": "words"} if cadence == "reference" else {}
        return cls(**{**base, **overrides, "cadence": cadence})

    @property
    def folding_fps(self) -> int:
        return self.fps

    @property
    def unfolding_video_fps(self) -> int:
        return self.unfolding_fps or self.fps

    def frames_per_action(self, fps: int | None = None) -> int:
        """Smooth cadence: frames of one action at `fps` (the folding video's by default)."""
        return max(1, round((fps or self.fps) * self.seconds_per_action))

    def hold_frames(self, fps: int | None = None) -> int:
        return max(1, round((fps or self.fps) * self.hold_seconds))

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))
