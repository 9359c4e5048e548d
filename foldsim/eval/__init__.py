"""Model-facing code: reading answers (`answers`), scoring them (`scoring`, `scoring_compat` on top of
`score_base`) and replaying planning answers (`verify`)."""
