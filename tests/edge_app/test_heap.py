"""The listener's startup heap is kept out of the garbage collector's walks."""

import subprocess
import sys
import textwrap
from pathlib import Path


def test_startup_objects_are_left_out_of_collections_and_later_garbage_is_still_collected():
    # In a child process: freezing is for the life of the process that does it.
    script = textwrap.dedent(
        """
        import gc
        from edge_app.heap import freeze_startup_heap

        class Node:
            pass

        early = Node()
        early.self = early  # a cycle alive at startup
        moved = freeze_startup_heap()
        late = Node()
        late.self = late
        tracked = {id(o) for o in gc.get_objects()}
        assert id(early) not in tracked and id(late) in tracked
        assert moved > 1000  # the interpreter's and the imports' objects too
        late = None
        assert gc.collect() >= 1  # a cycle made after startup is still garbage
        print("ok")
        """
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
