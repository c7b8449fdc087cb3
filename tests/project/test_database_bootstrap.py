import os
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[2]


def test_database_is_created_on_first_run_and_left_alone_after():
    name = f"telesrv_bootstrap_{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "TELESRV_DB_NAME": name}
    cmd = [sys.executable, "-m", "telesrv_project.database"]
    try:
        first = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
        second = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
        assert "created" in first.stderr and "already exists" not in first.stderr
        assert "already exists" in second.stderr
    finally:
        with psycopg.connect(host="127.0.0.1", user="postgres", dbname="postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
