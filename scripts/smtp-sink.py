#!/usr/bin/env python3
"""An SMTP server on loopback for the email tests (aiosmtpd, from the virtualenv that
scripts/ensure-smtp.sh makes). Binds 127.0.0.1 on a free port and prints `port <n>`, then one
JSON line per message accepted (and one per recipient refused): envelope sender and recipients, and the parsed headers and
parts. Recipients whose local part starts with `soft-` are refused with a 451 the first time
they are seen (then accepted); `hard-` ones always with a 550; a message to a `slow-` one is
reported at once and answered after a pause (a server that takes its time, so that senders
hold it in flight). Stops on stdin's end, so it never outlives the test that started it."""
import asyncio
import email
import email.policy
import json
import sys

from aiosmtpd.smtp import SMTP

seen = set()
# How long a message to a `slow-` recipient waits for its answer, in seconds.
SLOW_PAUSE = 0.1


class Handler:
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        local = address.split("@", 1)[0]
        if local.startswith("hard-"):
            print(json.dumps({"refused": address, "code": 550}), flush=True)
            return "550 5.1.1 No such user"
        if local.startswith("soft-") and address not in seen:
            seen.add(address)
            print(json.dumps({"refused": address, "code": 451}), flush=True)
            return "451 4.3.0 Try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        parts = {}
        for part in message.walk():
            if part.get_content_maintype() == "text":
                parts[part.get_content_type()] = part.get_content()
        print(json.dumps({
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "from": str(message["From"]),
            "to": str(message["To"]),
            "subject": str(message["Subject"]),
            "message_id": str(message["Message-ID"]),
            "content_type": message.get_content_type(),
            "text": parts.get("text/plain"),
            "html": parts.get("text/html"),
        }), flush=True)
        if any(r.split("@", 1)[0].startswith("slow-") for r in envelope.rcpt_tos):
            await asyncio.sleep(SLOW_PAUSE)
        return "250 Message accepted"


async def main():
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: SMTP(Handler()), "127.0.0.1", 0)
    print(f"port {server.sockets[0].getsockname()[1]}", flush=True)
    await loop.run_in_executor(None, sys.stdin.read)
    server.close()


asyncio.run(main())
