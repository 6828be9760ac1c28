"""Every runs method of the official Python LangGraph SDK (langgraph-sdk), unchanged, and
threads.join_stream, against our agent server: create, create_batch, stream (stream_mode events,
feedback_keys), wait, list, get, cancel, cancel_many, join, join_stream (with a stream mode and
last_event_id), delete; interrupt() resumed with a Command, interrupt_before, after_seconds and
if_not_exists. Prints one JSON line with what it saw."""

import asyncio
import json
import sys
import uuid

import httpx
from langgraph_sdk import get_client
from langgraph_sdk.errors import APIStatusError


def human(text: str) -> dict:
    return {"messages": [{"type": "human", "content": text}]}


def last_text(values: dict) -> str:
    return values["messages"][-1]["content"]


async def status_of(client, thread_id: str, run_id: str) -> str:
    return (await client.runs.get(thread_id, run_id))["status"]


async def until(what: str, probe, seconds: float = 60.0):
    """Polls probe() until it returns something truthy."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        value = await probe()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(what)
        await asyncio.sleep(0.05)


async def main(url: str) -> dict:
    client = get_client(url=url)
    out: dict = {}

    # create, join, get, wait, stream, list, delete
    thread = await client.threads.create()
    tid = thread["thread_id"]
    run = await client.runs.create(tid, "agent", input=human("background"))
    out["joined"] = last_text(await client.runs.join(tid, run["run_id"]))
    out["got"] = await status_of(client, tid, run["run_id"])
    out["waited"] = last_text(await client.runs.wait(tid, "agent", input=human("waited")))
    streamed = [p async for p in client.runs.stream(tid, "agent", input=human("streamed"), stream_mode=["values", "events"])]
    out["streamed"] = sorted({p.event for p in streamed})
    out["stream_event_kinds"] = sorted({p.data["event"] for p in streamed if p.event == "events"})
    out["listed"] = [r["status"] for r in await client.runs.list(tid)]
    await client.runs.delete(tid, run["run_id"])
    out["listed_after_delete"] = len(await client.runs.list(tid))

    # join_stream: a stream mode of the run's, and resumed after an event id
    joinable = await client.runs.create(tid, "agent", input=human("join me"), stream_mode=["values", "custom"])
    everything = [p.event async for p in client.runs.join_stream(tid, joinable["run_id"])]
    out["join_all"] = everything
    out["join_values"] = [p.event async for p in client.runs.join_stream(tid, joinable["run_id"], stream_mode="values")]
    out["join_rest"] = [p.event async for p in client.runs.join_stream(tid, joinable["run_id"], last_event_id="2")]

    # create_batch: stateless background runs
    batch = await client.runs.create_batch(
        [{"assistant_id": "agent", "input": human("b1")}, {"assistant_id": "agent", "input": human("b2")}]
    )
    out["batch"] = len(batch)

    # cancel a running run; cancel_many by ids and by status
    busy = (await client.threads.create())["thread_id"]
    slow = await client.runs.create(busy, "slow", input={"messages": []})
    await until("the slow run running", lambda: _is(client, busy, slow["run_id"], "running"))
    await client.runs.cancel(busy, slow["run_id"], wait=True)
    out["cancelled"] = await status_of(client, busy, slow["run_id"])
    held = await client.runs.create(busy, "agent", input=human("later"), after_seconds=600)
    await client.runs.cancel_many(thread_id=busy, run_ids=[held["run_id"]])
    out["cancelled_by_id"] = await status_of(client, busy, held["run_id"])
    held = await client.runs.create(busy, "agent", input=human("later"), after_seconds=600)
    await client.runs.cancel_many(status="pending", action="interrupt")
    out["cancelled_by_status"] = await status_of(client, busy, held["run_id"])

    # threads.join_stream: the thread's current run (slow, until the next one interrupts it), then the next
    followed = (await client.threads.create())["thread_id"]
    current = await client.runs.create(followed, "slow", input={"messages": []}, stream_mode=["values", "custom"])
    parts: list = []

    async def follow():
        # (threads.join_stream is a coroutine that answers the stream)
        async for part in await client.threads.join_stream(followed):
            parts.append(part)
            if len([p for p in parts if isinstance(p.data, dict) and p.data.get("status") == "run_done"]) == 2:
                return

    following = asyncio.create_task(follow())
    await until("the current run in the thread stream", lambda: _seen(parts, "custom"))
    nxt = await client.runs.create(followed, "agent", input=human("next"), multitask_strategy="interrupt")
    await asyncio.wait_for(following, 60)
    out["thread_stream_done"] = [
        p.data["run_id"] for p in parts if isinstance(p.data, dict) and p.data.get("status") == "run_done"
    ]
    out["thread_stream_runs"] = [current["run_id"], nxt["run_id"]]

    # interrupt() resumed with a Command; interrupt_before; after_seconds with if_not_exists
    approval = (await client.threads.create())["thread_id"]
    asked = await client.runs.wait(approval, "approval", input=human("ship it"))
    out["question"] = asked["__interrupt__"][0]["value"]["question"]
    out["resumed"] = last_text(await client.runs.wait(approval, "approval", command={"resume": "approve"}))
    stopped = (await client.threads.create())["thread_id"]
    await client.runs.wait(stopped, "agent", input=human("stop"), interrupt_before=["agent"])
    out["next_before"] = (await client.threads.get_state(stopped))["next"]
    new_thread = str(uuid.uuid4())
    try:
        await client.runs.wait(new_thread, "agent", input=human("x"))
        out["if_not_exists_reject"] = None
    except (APIStatusError, httpx.HTTPStatusError) as err:  # runs.wait raises httpx's own
        out["if_not_exists_reject"] = err.response.status_code
    later = await client.runs.create(new_thread, "agent", input=human("later"), after_seconds=1, if_not_exists="create")
    out["later_status"] = later["status"]
    out["later"] = last_text(await client.runs.join(new_thread, later["run_id"]))

    # feedback_keys: the feedback event's URLs record feedback with no API key
    fb = [p async for p in client.runs.stream(None, "agent", input=human("rate"), feedback_keys=["thumbs"])]
    urls = [p.data for p in fb if p.event == "feedback"]
    out["feedback_keys"] = sorted(urls[0].keys()) if urls else []
    if urls:
        async with httpx.AsyncClient() as plain:
            res = await plain.post(urls[0]["thumbs"], json={"score": 1, "comment": "from python"})
            out["feedback_status"] = res.status_code
    return out


async def _is(client, thread_id: str, run_id: str, status: str) -> bool:
    return await status_of(client, thread_id, run_id) == status


async def _seen(parts: list, event: str) -> bool:
    return any(p.event == event for p in parts)


if __name__ == "__main__":
    print(json.dumps({**asyncio.run(main(sys.argv[1])), "requests": [], "log": []}))
