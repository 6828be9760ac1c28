"""Replays a recorded sequence of ClickHouse steps on current ClickHouse, in-process (chdb).

Reads JSON lines from the file named by the first argument, runs each step in one chdb session,
in order, and prints one JSON line per step:
  {"ok": true, "answer": "<base64 of the answer's bytes>"}   or   {"ok": false, "error": "..."}
The first line sets the session up: {"kind": "session", "timezone": "UTC", "config": "<clickhouse>…"}
(config, optional: a server config for the session, such as a cluster's remote_servers). Then:
  {"kind": "statement", "database": "db" | null, "query": "...", "data": "..." | null, "binary": false}
      the statement as sent over HTTP: run in `database` (the server default when null); an
      insert's rows (`data`) follow its text, as ClickHouse reads inline data after FORMAT;
      binary rows (RowBinary, `data` in base64) are read from a file (INSERT … FROM INFILE), the
      query text being no place for bytes.
  {"kind": "control", "action": "settle", "database": "db", "stopMerges": true | false}
      every MergeTree table of the database merged into one part, no mutation pending; then
      merges stopped (or left running), so reads that do not merge see the same rows here as
      on the server that was recorded.
  {"kind": "control", "action": "mutationsDone", "database": "db"}
      waits for the database's mutations to finish; a failed one is an error.
The comparison with the recorded answers is the caller's (test/contract/currentClickHouse.test.ts).
"""

import base64
import json
import os
import re
import sys
import tempfile
import time

from chdb import session


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        steps = [json.loads(line) for line in f if line.strip()]
    with tempfile.TemporaryDirectory(prefix="chdb-replay-") as path:
        setup = steps[0]
        if setup.get("config"):
            config = os.path.join(path, "config.xml")
            with open(config, "w", encoding="utf-8") as f:
                f.write(setup["config"])
            sess = session.Session(f"{os.path.join(path, 'data')}?config-file={config}")
        else:
            sess = session.Session(path)
        # As our client asks of every server (platform/clickhouse/client.ts): 64-bit integers quoted.
        sess.query("SET output_format_json_quote_64bit_integers = 1")
        sess.query(f"SET session_timezone = '{setup['timezone']}'")
        version = sess.query("SELECT version()", "TabSeparated").bytes().decode().strip()
        print(json.dumps({"ok": True, "version": version}), flush=True)
        for step in steps[1:]:
            try:
                answer = run(sess, step)
                print(json.dumps({"ok": True, "answer": base64.b64encode(answer).decode()}), flush=True)
            except Exception as err:  # noqa: BLE001 - every failure is reported for its step
                print(json.dumps({"ok": False, "error": str(err)[:2000]}), flush=True)
        sess.close()


def run(sess, step) -> bytes:
    if step["kind"] == "statement":
        sess.query(f"USE `{step['database'] or 'default'}`")
        if step.get("binary"):
            return insert_from_file(sess, step["query"], base64.b64decode(step["data"]))
        text = step["query"] if step["data"] is None else step["query"] + "\n" + step["data"]
        return sess.query(text).bytes()
    if step["action"] == "settle":
        settle(sess, step["database"], step["stopMerges"])
        return b""
    if step["action"] == "mutationsDone":
        wait_for_mutations(sess, step["database"])
        return b""
    raise ValueError(f"unknown step {step!r}")


def insert_from_file(sess, query: str, data: bytes) -> bytes:
    with tempfile.NamedTemporaryFile(prefix="chdb-insert-", suffix=".bin", delete=False) as f:
        f.write(data)
    try:
        text, count = re.subn(r"\s+FORMAT\s+(\w+)\s*$", lambda m: f" FROM INFILE '{f.name}' FORMAT {m.group(1)}", query)
        if count != 1:
            raise ValueError(f"a binary insert without a trailing FORMAT clause: {query[:200]}")
        return sess.query(text).bytes()
    finally:
        os.unlink(f.name)


def rows(sess, text: str) -> list:
    out = sess.query(text, "JSONEachRow").bytes().decode()
    return [json.loads(line) for line in out.splitlines() if line]


def settle(sess, database: str, stop_merges: bool) -> None:
    listed = rows(sess, f"SELECT name FROM system.tables WHERE database = '{database}' AND engine LIKE '%MergeTree' ORDER BY name")
    tables = [r["name"] for r in listed]
    for table in tables:
        sess.query(f"SYSTEM START MERGES `{database}`.`{table}`")
    deadline = time.monotonic() + 60
    for table in tables:
        # OPTIMIZE is a no-op while a background merge holds the parts: ask until one part is left.
        while True:
            sess.query(f"OPTIMIZE TABLE `{database}`.`{table}` FINAL")
            where = f"database = '{database}' AND table = '{table}'"
            parts = rows(sess, f"SELECT count() AS n FROM system.parts WHERE {where} AND active")
            pending = rows(sess, f"SELECT count() AS n FROM system.mutations WHERE {where} AND NOT is_done")
            if int(parts[0]["n"]) <= 1 and int(pending[0]["n"]) == 0:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"{database}.{table} did not settle into one part")
            time.sleep(0.05)
        if stop_merges:
            sess.query(f"SYSTEM STOP MERGES `{database}`.`{table}`")


def wait_for_mutations(sess, database: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        pending = rows(sess, f"SELECT table, latest_fail_reason FROM system.mutations WHERE database = '{database}' AND NOT is_done")
        failed = [p for p in pending if p["latest_fail_reason"]]
        if failed:
            raise RuntimeError(f"mutation failed: {failed}")
        if not pending:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"mutations of {database} still pending: {pending}")
        time.sleep(0.05)


if __name__ == "__main__":
    main()
