"""Drives `procflow mcp` with the official Python MCP SDK (an MCP client independent of the
server's SDK): lists the tools, starts a run, finds its task in my_tasks, completes it with a
value, comments on it, and sees an API refusal come back as a tool error; then lists the tools of a read key.
Prints one JSON object of what it saw; the Rust test (crates/procflow-server/tests/server/mcp.rs)
asserts on it. Reads PROCFLOW_BIN, PROCFLOW_API_URL, WRITE_KEY, READ_KEY, TEMPLATE_ID and
ACTOR_EMAIL from the environment."""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def server(key):
    env = {"PROCFLOW_API_URL": os.environ["PROCFLOW_API_URL"], "PROCFLOW_API_KEY": key,
           "RUST_LOG": "warn", "PATH": os.environ.get("PATH", "")}
    return StdioServerParameters(command=os.environ["PROCFLOW_BIN"], args=["mcp"], env=env)


def payload(result):
    text = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
    return json.loads(text) if text else None


async def with_write_key(seen):
    async with stdio_client(server(os.environ["WRITE_KEY"])) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            seen["write_tools"] = sorted(t.name for t in tools.tools)
            seen["schemas"] = {t.name: t.input_schema for t in tools.tools}
            actor = os.environ["ACTOR_EMAIL"]
            started = await session.call_tool("start_run", {
                "template_id": os.environ["TEMPLATE_ID"], "name": "Via MCP", "actor_email": actor})
            seen["start_error"] = started.is_error
            run = payload(started)["data"]
            seen["run_title"] = run["title"]
            inbox = await session.call_tool("my_tasks", {"assignee": actor, "limit": 100})
            items = [i for i in payload(inbox)["data"] if i["run"]["id"] == run["id"]]
            seen["inbox_run_titles"] = sorted({i["run"]["title"] for i in items})
            task = items[0]
            name = next(e for e in task["custom_elements"] if e["label"] == "Full name")
            done = await session.call_tool("update_task", {
                "run_id": run["id"], "task_id": task["id"], "completed": True,
                "custom_elements": [{"id": name["id"], "value": "Ada Lovelace"}]})
            seen["update_error"] = done.is_error
            updated = payload(done)["data"]
            seen["completed"] = updated["completed"]
            seen["value"] = next(e["value"] for e in updated["custom_elements"]
                                 if e["id"] == name["id"])
            commented = await session.call_tool("comment_on_task", {
                "run_id": run["id"], "task_id": task["id"], "text": "Filled in via MCP"})
            seen["comment_error"] = commented.is_error
            seen["comment_text"] = payload(commented)["data"]["text"]
            email = next(e for e in task["custom_elements"] if e["label"] == "Personal email")
            refused = await session.call_tool("update_task", {
                "run_id": run["id"], "task_id": task["id"],
                "custom_elements": [{"id": email["id"], "value": "not an email"}]})
            seen["refused_is_error"] = refused.is_error
            seen["refused"] = payload(refused)
            missing = await session.call_tool("get_run", {"run_id": "nope"})
            seen["missing"] = payload(missing)


async def with_read_key(seen):
    async with stdio_client(server(os.environ["READ_KEY"])) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            seen["read_tools"] = sorted(t.name for t in tools.tools)


async def main():
    seen = {}
    await with_write_key(seen)
    await with_read_key(seen)
    json.dump(seen, sys.stdout)


asyncio.run(main())
