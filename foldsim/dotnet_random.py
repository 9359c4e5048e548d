"""The seeded pseudo-random generator of .NET's `System.Random(int seed)` (the legacy subtractive
generator after Knuth that .NET Framework uses, and .NET 6+ keeps for seeded instances), so that
a peer's shapes drawn with a fixed seed can be rebuilt here: PFP draws its irregular heptagon sheet
with `new Random(42)` (foldsim.polygons.preset_sheet). Checked in tests against outputs .NET
itself printed for seeds 42 and 0."""

from __future__ import annotations

from dataclasses import dataclass, field

INT_MAX = 2**31 - 1
_SEED_MIX = 161803398  # the golden-ratio constant of the subtractive generator's seeding


@dataclass
class DotNetRandom:
    """The generator's state: 55 lagged values and the two indices into them."""

    seed: int
    _values: list[int] = field(init=False, repr=False)
    _next: int = field(init=False, default=0)
    _next_p: int = field(init=False, default=21)

    def __post_init__(self) -> None:
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or not -2**31 <= self.seed <= INT_MAX:
            raise ValueError(f"a .NET seed is a 32-bit integer, got {self.seed!r}")
        values = [0] * 56
        start = INT_MAX if self.seed == -2**31 else abs(self.seed)
        last = _SEED_MIX - start
        values[55] = last
        step = 1
        for i in range(1, 55):
            at = 21 * i % 55
            values[at] = step
            step = last - step
            if step < 0:
                step += INT_MAX
            last = values[at]
        for _ in range(4):
            for i in range(1, 56):
                values[i] -= values[1 + (i + 30) % 55]
                if values[i] < 0:
                    values[i] += INT_MAX
        self._values = values

    def next_int(self) -> int:
        """`Next()`: an integer in [0, 2^31 - 1)."""
        self._next = 1 if self._next + 1 >= 56 else self._next + 1
        self._next_p = 1 if self._next_p + 1 >= 56 else self._next_p + 1
        value = self._values[self._next] - self._values[self._next_p]
        if value == INT_MAX:
            value -= 1
        if value < 0:
            value += INT_MAX
        self._values[self._next] = value
        return value

    def next_double(self) -> float:
        """`NextDouble()`: the next integer times 1 / (2^31 - 1), a double in [0, 1)."""
        return self.next_int() * (1.0 / INT_MAX)
