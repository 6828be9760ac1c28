"""The official A2A SDK for Python (a2a-sdk, unchanged) against the agent server: the v1.0 client
the ClientFactory makes from the agent card (SendMessage, SendStreamingMessage, GetTask,
CancelTask), and the SDK's v0.3 JSON-RPC transport (message/send, message/stream, tasks/get,
tasks/cancel). Prints what each saw as one JSON line.

Usage: a2a_client.py <agent server URL>   (AGENT_SERVER_API_KEY: sent as X-Api-Key when set)
"""

import asyncio
import os
import sys
import uuid
from typing import Any, Optional

import httpx
from a2a.client import A2ACardResolver, BaseClient, ClientConfig, ClientFactory
from a2a.compat.v0_3.jsonrpc_transport import CompatJsonRpcTransport
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    StreamResponse,
    Task,
    TaskState,
)
from a2a.utils.errors import InvalidParamsError, TaskNotFoundError

from _harness import emit

base_url = sys.argv[1].rstrip("/")


def say(text: str, after: Optional[Task] = None, return_immediately: bool = False) -> SendMessageRequest:
    message = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[Part(text=text)])
    if after is not None:
        message.context_id = after.context_id
        message.task_id = after.id
    request = SendMessageRequest(message=message)
    request.configuration.return_immediately = return_immediately
    return request


def text_of(parts: Any) -> str:
    return "".join(p.text for p in parts if p.HasField("text"))


def state(task: Task) -> str:
    return TaskState.Name(task.status.state)


async def sent_task(client: BaseClient, request: SendMessageRequest) -> Task:
    """What a non-streaming client's send_message gives: one response holding the task."""
    responses = [r async for r in client.send_message(request)]
    assert len(responses) == 1 and responses[0].HasField("task"), responses
    return responses[0].task


async def stream(client: BaseClient, request: SendMessageRequest) -> list[StreamResponse]:
    return [r async for r in client.send_message(request)]


async def conversation(send_client: BaseClient, stream_client: BaseClient, slow_client: BaseClient) -> dict[str, Any]:
    out: dict[str, Any] = {}
    first = await sent_task(send_client, say("hello from python"))
    second = await sent_task(send_client, say("and again", first))
    out["first"] = {"state": state(first), "context_id": first.context_id, "task_id": first.id, "answer": text_of(first.artifacts[0].parts), "status_text": text_of(first.status.message.parts)}
    out["second"] = {"context_id": second.context_id, "answer": text_of(second.artifacts[0].parts), "history": [[Role.Name(m.role), text_of(m.parts)] for m in second.history]}

    events = await stream(stream_client, say("stream from python", second))
    kinds = [e.WhichOneof("payload") for e in events]
    working = [text_of(e.status_update.status.message.parts) for e in events if e.HasField("status_update") and e.status_update.status.state == TaskState.TASK_STATE_WORKING and e.status_update.status.HasField("message")]
    final = events[-1].status_update
    out["stream"] = {
        "kinds": kinds,
        "working": working,
        "artifact": text_of(events[-2].artifact_update.artifact.parts),
        "final_state": TaskState.Name(final.status.state),
        "final_text": text_of(final.status.message.parts),
        "context_id": final.context_id,
    }

    got = await send_client.get_task(GetTaskRequest(id=first.id, history_length=2))
    out["get"] = {"state": state(got), "answer": text_of(got.artifacts[0].parts), "history": [text_of(m.parts) for m in got.history]}
    try:
        await send_client.get_task(GetTaskRequest(id=f"{first.context_id}:{uuid.uuid4()}"))
        out["get_unknown"] = "no error"
    except TaskNotFoundError as err:
        out["get_unknown"] = f"TaskNotFoundError: {err}"

    started = await sent_task(slow_client, say("take your time", return_immediately=True))
    canceled = await slow_client.cancel_task(CancelTaskRequest(id=started.id))
    out["cancel"] = {"started": state(started), "canceled": state(canceled), "after": state(await slow_client.get_task(GetTaskRequest(id=started.id)))}
    return out


async def card_of(http: httpx.AsyncClient, assistant: str):
    return await A2ACardResolver(http, f"{base_url}/a2a/{assistant}").get_agent_card()


async def main() -> None:
    result: dict[str, Any] = {}
    api_key = os.environ.get("AGENT_SERVER_API_KEY")
    async with httpx.AsyncClient(timeout=60, headers={"x-api-key": api_key} if api_key else None) as http:
        agent_card, slow_card = await card_of(http, "agent"), await card_of(http, "slow")
        result["card"] = {"name": agent_card.name, "streaming": agent_card.capabilities.streaming, "interfaces": [[i.protocol_binding, i.protocol_version, i.url] for i in agent_card.supported_interfaces]}

        # v1.0: the factory picks the card's 1.0 JSON-RPC interface.
        def v1(card, streaming: bool) -> BaseClient:
            return ClientFactory(ClientConfig(streaming=streaming, httpx_client=http)).create(card)

        result["v1"] = await conversation(v1(agent_card, False), v1(agent_card, True), v1(slow_card, False))
        counter_card = await card_of(http, "counter")
        try:
            await sent_task(v1(counter_card, False), say("count this"))
            result["v1"]["counter"] = "no error"
        except InvalidParamsError as err:
            result["v1"]["counter"] = f"InvalidParamsError: {err}"

        # v0.3: the SDK's compat transport, on the same endpoint.
        def v03(card, streaming: bool) -> BaseClient:
            transport = CompatJsonRpcTransport(http, card, card.supported_interfaces[0].url, is_shared_httpx=True)
            return BaseClient(card, ClientConfig(streaming=streaming, httpx_client=http), transport, [])

        result["v03"] = await conversation(v03(agent_card, False), v03(agent_card, True), v03(slow_card, False))
    emit(result)


asyncio.run(main())
