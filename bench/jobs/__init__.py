"""bench/run's jobs, one module per job or family of jobs, listed here in the order they run.

A module states its job numbers (`NUMBERS`), its lines of `bench/run --help` (`HELP`), optionally
its line of the report's Method section (`METHOD`), and how it is run:
- `plan_height(ctx, height)`: one `harness.runner.Job` per clip height of `--heights`, its variants
  run side by side (jobs 1, 2, 7, 3, planned height by height);
- `plan(ctx)`: a list of such Jobs (empty when `--jobs` asks for none of its numbers);
- `run(ctx)`: jobs measured their own way, yielding `(key, result)` as each ends (serve, variants;
  the profile returns its result, which the report shows in a section of its own).
"""
from . import batch, ladder, marked, memory, plain, profile, quality, serve, smart, stamp, tiled, timecode, variants

ALL = [plain, marked, timecode, tiled, stamp, batch, memory, smart, quality, ladder, serve, variants, profile]
# `--jobs` without a list: everything but job 15, which takes an hour.
DEFAULT = "1,2,7,3,4,5,6,8,9,10,11,12,13,14,16,profile"


def help_text():
    return "\n".join(m.HELP for m in ALL)


def method_notes():
    return [m.METHOD for m in ALL if hasattr(m, "METHOD")]


def side_by_side(ctx):
    """The Jobs `--jobs` asks for, in run order: each height's video jobs, then the others."""
    planned = []
    for h in ctx.args.heights:
        for m in ALL:
            if hasattr(m, "plan_height") and any(ctx.wants(n) for n in m.NUMBERS):
                planned.append(m.plan_height(ctx, h))
    for m in ALL:
        if hasattr(m, "plan"):
            planned += m.plan(ctx)
    return planned


def measured_alone(ctx):
    """(key, result) of each job that times itself (serve, variants), as each ends."""
    for m in ALL:
        if hasattr(m, "run") and m is not profile:
            yield from m.run(ctx)
