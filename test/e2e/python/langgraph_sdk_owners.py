"""Drives an agent server whose config names a custom auth module that stamps owners
(test/services/agent-server/fixtures/ownerAuth.ts) with the official Python LangGraph SDK
(langgraph-sdk), unchanged, as two users: each sees only their own threads and runs.
Prints one JSON line with what it saw.

Usage: langgraph_sdk_owners.py <agent server URL>
"""

import asyncio
import json
import sys
import uuid

import httpx
from langgraph_sdk import get_client
from langgraph_sdk.errors import APIStatusError


def human(text: str) -> dict:
    return {"messages": [{"type": "human", "content": text}]}


async def status_of(call) -> object:
    try:
        await call
        return "ok"
    except APIStatusError as err:
        return err.status_code
    except httpx.HTTPStatusError as err:  # what runs.wait raises (it reconnects on its own)
        return err.response.status_code


async def main(url: str) -> dict:
    alice = get_client(url=url, api_key=None, headers={"Authorization": "Bearer token-alice"})
    bob = get_client(url=url, api_key=None, headers={"Authorization": "Bearer token-bob"})
    topic = str(uuid.uuid4())
    out: dict = {}

    thread = await alice.threads.create(metadata={"topic": topic})
    out["owner"] = thread["metadata"].get("owner")
    tid = thread["thread_id"]
    values = await alice.runs.wait(tid, "agent", input=human("from python"))
    out["answer"] = values["messages"][-1]["content"]
    run_id = (await alice.runs.list(tid))[0]["run_id"]
    await bob.threads.create(metadata={"topic": topic})

    out["alice_sees"] = [t["metadata"]["owner"] for t in await alice.threads.search(metadata={"topic": topic})]
    out["bob_sees"] = [t["metadata"]["owner"] for t in await bob.threads.search(metadata={"topic": topic})]
    out["bob_on_alices"] = {
        "get": await status_of(bob.threads.get(tid)),
        "state": await status_of(bob.threads.get_state(tid)),
        "history": await status_of(bob.threads.get_history(tid)),
        "runs": await status_of(bob.runs.list(tid)),
        "run": await status_of(bob.runs.get(tid, run_id)),
        "update": await status_of(bob.threads.update(tid, metadata={"owner": "bob"})),
        "delete": await status_of(bob.threads.delete(tid)),
        "wait": await status_of(bob.runs.wait(tid, "agent", input=human("intruder"), if_not_exists="create")),
    }
    out["alice_still_has"] = (await alice.threads.get(tid))["metadata"]
    out["no_token"] = await status_of(get_client(url=url, api_key=None).threads.search())
    return out


if __name__ == "__main__":
    print(json.dumps({**asyncio.run(main(sys.argv[1])), "requests": [], "log": []}))
