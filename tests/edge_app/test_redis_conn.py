"""Which Redis a URL selects (edge_app.redis_conn); the cluster itself is exercised in
tests/channels_app/test_redis_cluster.py and tests/e2e/test_redis_cluster.py."""

from __future__ import annotations

from edge_app import redis_conn


def test_plain_urls_are_one_redis_and_the_cluster_scheme_a_cluster(settings):
    for url in ("redis://127.0.0.1:6379/4", "rediss://h:6380/0", "unix:///run/redis.sock"):
        settings.REDIS_URL = url
        assert not redis_conn.is_cluster(), url
    for url in ("redis+cluster://10.0.0.6:6379/", "rediss+cluster://h:1,h2:2/", "REDIS+CLUSTER://h:1"):
        settings.REDIS_URL = url
        assert redis_conn.is_cluster(), url


def test_seed_nodes_and_credentials_come_from_the_cluster_url():
    seeds, options = redis_conn.cluster_seeds("redis+cluster://10.0.0.6:6379,10.0.0.7:7000,node3/")
    assert seeds == [("10.0.0.6", 6379), ("10.0.0.7", 7000), ("node3", 6379)]
    assert options == {}
    seeds, options = redis_conn.cluster_seeds("rediss+cluster://app:s%40cret@[::1]:7000,h:7001/?x=1")
    assert seeds == [("::1", 7000), ("h", 7001)]
    assert options == {"username": "app", "password": "s@cret", "ssl": True}
    _, options = redis_conn.cluster_seeds("redis+cluster://:only-a-password@h:1/")
    assert options == {"username": None, "password": "only-a-password"}


def test_hash_tags_put_one_channels_keys_in_one_slot():
    from redis.crc import key_slot

    tag = redis_conn.hash_tag("c", 123)
    assert tag == "{c:123}"
    assert key_slot(f"p:a:{tag}".encode()) == key_slot(f"p:b:{tag}:x".encode())
