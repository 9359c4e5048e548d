"""The README's Python example: fold, rotate, punch, unfold."""

import foldsim

config = foldsim.Config.from_codes(
    "D1-F,H1-F,R-90", [foldsim.Hole.make("star", "large", 0, 32)], id="demo"
)
[result] = foldsim.simulate([config])
print(result.status, result.unfolding)  # ok ('V2-F', 'D2-F')
for hole in result.holes:
    print(hole.location, hole.shape, hole.size, hole.direction, "mirrored" if hole.mirrored else "")
print("folded state (grid id -> layers):", result.layers)
