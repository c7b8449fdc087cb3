"""The data-scale benchmark at CI size (bench/bench_data_scale.py --scale 0.05): a small
database and one ten times larger (5k users, 1k members, a 50k-message group, the
viewer in 50 groups), loaded through the real tables, the same calls by a real
Telethon client against both.

Timings on a shared CI box are noisy, so the ratios are asserted loosely: what is
checked is that no call's cost follows the data (a per-member or per-message read
shows as a ratio near ten), and that search answers what a user sees: an old match
below any recent window is found, with its total count."""

from __future__ import annotations

import os

import pytest

from bench import bench_data_scale as scale

pytestmark = pytest.mark.e2e

RATIO_MAX = 4.0  # a cost that grew with ten times the data would be near 10


def test_calls_cost_the_same_on_a_database_ten_times_larger(monkeypatch):
    # The benchmark names its databases' Redis prefixes after this one. Set for this test
    # only: a listener a later test starts must share the suite's prefix.
    monkeypatch.setenv("TELESRV_REDIS_PREFIX", os.environ.get("TELESRV_REDIS_PREFIX", "test"))
    figures = scale.run(0.05, rounds=7, tag="_ci")
    print(scale.table(figures))
    small, big = figures["small"], figures["big"]
    old = big[f"search in group old '{scale.OLD}'"]
    # Twenty matches in the oldest tenth of 50k messages: all found, counted exactly.
    assert (old["found"], old["count"], old["inexact"]) == (20, 20, False), old
    rare = big[f"search in group rare '{scale.RARE}'"]
    assert (rare["found"], rare["count"], rare["inexact"]) == (20, 20, False), rare
    common = big[f"search in group common '{scale.COMMON}'"]
    assert common["found"] == 20 and common["inexact"], common
    assert big[f"searchGlobal rare '{scale.RARE}'"]["found"] == 20
    # The private chat: its history's exact total; a rare word's twenty matches of the
    # whole history found (a page, its count marked inexact).
    private = big["getHistory(private, 100)"]
    assert (private["count"], private["inexact"]) == (scale.sizes(0.05)["big"]["private"], False), private
    p_rare = big[f"search in private rare '{scale.P_RARE}'"]
    assert p_rare["found"] == 20 and p_rare["inexact"], p_rare
    assert big[f"searchGlobal common '{scale.COMMON}'"]["found"] == 20
    slow = {
        name: round(b["p50"] / small[name]["p50"], 2)
        for name, b in big.items()
        # The floor keeps a few milliseconds of noise from making a ratio.
        if b["p50"] > RATIO_MAX * max(small[name]["p50"], 15.0)
    }
    assert not slow, f"calls whose p50 grew with the data: {slow}"
