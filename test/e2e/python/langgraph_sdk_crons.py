"""Drives the agent server's crons with the official Python LangGraph SDK (langgraph-sdk),
unchanged: every method of client.crons (create_for_thread, create, update, search, count,
delete), with a time zone, an end_time set and cleared, metadata filters and selected fields,
and the 422 a schedule that is not one gets. Prints one JSON line with what it saw; the cron on
its thread is left for the test (which makes it due on PostgreSQL)."""

import asyncio
import datetime
import json
import sys

from langgraph_sdk import get_client
from langgraph_sdk.errors import APIStatusError


async def main(url: str, tag: str) -> dict:
    client = get_client(url=url)
    out: dict = {}

    thread = await client.threads.create()
    out["thread_cron"] = await client.crons.create_for_thread(
        thread["thread_id"],
        "counter",
        schedule="0 0 1 1 *",  # yearly: it runs only when the test makes it due
        input={},
        metadata={"source": "python", "kind": "thread", "tag": tag},
        multitask_strategy="enqueue",
    )
    stateless = await client.crons.create(
        "counter",
        schedule="0 8 * * 1-5",
        input={},
        metadata={"source": "python", "kind": "stateless", "tag": tag},
        on_run_completed="keep",
        timezone="Europe/Paris",
        end_time=datetime.datetime(2031, 1, 1, tzinfo=datetime.timezone.utc),
    )
    out["stateless_cron"] = stateless

    out["updated"] = await client.crons.update(
        stateless["cron_id"], enabled=False, end_time=None, metadata={"step": 2}
    )
    found = await client.crons.search(metadata={"kind": "stateless", "tag": tag}, sort_by="created_at", sort_order="asc")
    out["found_by_metadata"] = [c["cron_id"] for c in found]
    selected = await client.crons.search(thread_id=thread["thread_id"], select=["cron_id", "next_run_date"])
    out["selected_keys"] = sorted(selected[0].keys())
    out["count_by_thread"] = await client.crons.count(thread_id=thread["thread_id"])
    out["count_by_metadata"] = await client.crons.count(metadata={"kind": "stateless", "tag": tag})

    await client.crons.delete(stateless["cron_id"])
    out["after_delete"] = await client.crons.count(metadata={"kind": "stateless", "tag": tag})
    try:
        await client.crons.delete(stateless["cron_id"])
        out["delete_again"] = 200
    except APIStatusError as err:
        out["delete_again"] = err.status_code

    try:
        await client.crons.create("counter", schedule="every monday")
        out["bad_schedule"] = None
    except APIStatusError as err:
        out["bad_schedule"] = {"status": err.status_code, "detail": err.response.json().get("detail")}
    return out


if __name__ == "__main__":
    print(json.dumps({**asyncio.run(main(sys.argv[1], sys.argv[2])), "requests": [], "log": []}, default=str))
