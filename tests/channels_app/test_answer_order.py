"""A session's own sends and the channel's other events reach it in pts order
(channels_app.push: answers owed, pushes held), however many it has in flight."""

import asyncio

from channels_app import push


async def settle():
    for _ in range(5):  # a released waiter resumes a few loop turns later
        await asyncio.sleep(0)


class FakeSession:
    auth_key_id, session_id = 1, 2

    def __init__(self):
        self.got = []

    async def push(self, updates):
        self.got.append(updates)


async def test_answers_and_held_pushes_go_in_pts_order():
    s = FakeSession()
    key = (s.auth_key_id, s.session_id)
    channel = 77
    own = list(range(1, 401, 2))  # 200 sends of this session in flight: odd pts
    push._owed.setdefault(key, {})[channel] = list(own)
    released = []

    async def answer(pts):
        await push._after_earlier_answers(key, channel, pts)
        released.append(pts)

    waiting = [asyncio.ensure_future(answer(p)) for p in reversed(own)]
    for p in range(2, 402, 2):  # the other members' events meanwhile: even pts
        await push._push_after_own_answers(s, channel, p, f"event {p}")
    await settle()
    assert released == [1] and s.got == []  # only the oldest answer may go; every push waits

    for p in own:  # each answer, once sent, lets the next one go and the pushes before it
        await push._answer_sent(key, channel, p)
        await settle()
        assert released[-1] == min(p + 2, own[-1])
        assert s.got == [f"event {e}" for e in range(2, p + 2, 2)] or p == own[-1]
    await asyncio.gather(*waiting)
    assert released == own
    assert s.got == [f"event {e}" for e in range(2, 402, 2)]
    assert key not in push._owed and (key, channel) not in push._held
    assert (key, channel) not in push._answer_waiters
