from edge_app.ratelimit import RequestRateLimit


def test_burst_then_rate_then_flood_wait_seconds():
    now = [0.0]
    limit = RequestRateLimit(rate=2, burst=3, clock=lambda: now[0])
    assert [limit.take(1) for _ in range(3)] == [0, 0, 0]
    assert limit.take(1) == 1  # empty: wait for the next token
    assert limit.take(2) == 0  # another key has its own bucket
    now[0] += 0.5
    assert limit.take(1) == 0
    now[0] += 100
    assert [limit.take(1) for _ in range(4)] == [0, 0, 0, 1]  # refilled to the burst, no more


def test_rate_zero_means_no_limit():
    limit = RequestRateLimit(rate=0, burst=0)
    assert not limit.enabled and all(limit.take(1) == 0 for _ in range(10_000))
