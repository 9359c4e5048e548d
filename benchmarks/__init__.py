"""foldsim benchmarks: `python -m benchmarks` (or `make bench`).

Families, each a module with `run(ctx) -> dict` and `report(result) -> [rich Table]`:

    simulate   configurations/s and result holes/s of the kernel vs the plain reference loop,
               compile vs steady time, the host path, peak memory of the largest batch
    scaling    time vs batch size and vs number of actions (tables and scaling.png)
    profile    share of wall time inside compiled code on the host path, cProfile top entries
    verify     plans/s of the bulk verifier vs the plain loop
    solve      seconds per planning task of the exhaustive solver, by fold count
    render     frames/s and seconds per item video of the 3-D renderer

Results go to benchmarks/results.json, one entry per device (CPU and GPU figures side by side).
"""
