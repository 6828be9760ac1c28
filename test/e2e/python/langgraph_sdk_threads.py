"""Drives the thread methods of the official Python LangGraph SDK (langgraph-sdk) beyond the basics:
prune (delete and keep_latest, with another workspace's thread and an unknown id among the ids),
copy, and a TTL read back with get(include=["ttl"]). Prints one JSON line with what it saw.

Arguments: url, a thread to delete, a thread with two runs to keep the latest of, another
workspace's thread, an unknown thread id."""

import asyncio
import json
import sys

from langgraph_sdk import get_client
from langgraph_sdk.errors import APIStatusError


async def status_of(call) -> int:
    try:
        await call
    except APIStatusError as err:
        return err.status_code
    return 200


async def main(url: str, to_delete: str, to_keep: str, theirs: str, unknown: str) -> dict:
    client = get_client(url=url)
    out: dict = {}
    out["pruned_delete"] = await client.threads.prune([to_delete, theirs, unknown])
    out["deleted_status"] = await status_of(client.threads.get(to_delete))
    out["pruned_keep"] = await client.threads.prune([to_keep, theirs], strategy="keep_latest")
    out["kept_history"] = len(await client.threads.get_history(to_keep, limit=100))
    out["kept_messages"] = len((await client.threads.get_state(to_keep))["values"]["messages"])

    copy = await client.threads.copy(to_keep)
    out["copy_metadata"] = copy["metadata"]
    out["copy_history"] = len(await client.threads.get_history(copy["thread_id"], limit=100))

    with_ttl = await client.threads.create(ttl=30)
    out["ttl"] = (await client.threads.get(with_ttl["thread_id"], include=["ttl"]))["ttl"]
    return out


if __name__ == "__main__":
    print(json.dumps({**asyncio.run(main(*sys.argv[1:6])), "requests": [], "log": []}))
