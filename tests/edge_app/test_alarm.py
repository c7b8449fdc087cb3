"""The background jobs' alarm (edge_app.alarm): a job sleeping until its next due time
wakes at once when a write in this process rings, from the loop or from an ORM thread,
and sleeps its whole time otherwise."""

import asyncio
import threading
import time

from edge_app.alarm import Alarm, seconds_until


async def test_a_ring_from_a_thread_wakes_the_sleeping_job_at_once():
    alarm = Alarm()
    rung = alarm.arm()
    threading.Timer(0.1, alarm.ring).start()
    t0 = time.monotonic()
    await alarm.sleep(rung, 5.0)
    assert time.monotonic() - t0 < 2.0
    # the ring is spent: the next sleep lasts its time
    t0 = time.monotonic()
    await alarm.sleep(rung, 0.2)
    assert time.monotonic() - t0 >= 0.19


async def test_a_ring_before_the_sleep_is_not_lost():
    alarm = Alarm()
    rung = alarm.arm()
    alarm.ring()  # on the job's loop: a write between the job's read and its sleep
    t0 = time.monotonic()
    await asyncio.wait_for(alarm.sleep(rung, 5.0), 2.0)
    assert time.monotonic() - t0 < 1.0


def test_ringing_with_no_job_waiting_does_nothing():
    Alarm().ring()


def test_a_due_second_is_slept_until_and_capped():
    assert seconds_until(None, 100.0, 5.0) == 5.0
    assert 2.0 < seconds_until(103, 100.5, 5.0) < 2.6
    assert seconds_until(99, 100.5, 5.0) == 0.0
    assert seconds_until(200, 100.0, 5.0) == 5.0
