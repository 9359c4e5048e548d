"""Item families: each benchmark's sheet, actions and rules as a preset of the general engine."""
