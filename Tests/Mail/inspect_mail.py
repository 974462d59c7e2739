"""Reads an .eml file with Python's email package (independently of our writer) and prints JSON:
the decoded headers, the text and HTML bodies, and each attachment's name, type and SHA-256; with a
folder as the second argument, each attachment is also written there under its name."""
import hashlib
import json
import os
import sys
from email import policy
from email.parser import BytesParser

with open(sys.argv[1], "rb") as f:
    raw = f.read()
message = BytesParser(policy=policy.default).parsebytes(raw)
if len(sys.argv) > 2:
    for part in message.iter_attachments():
        with open(os.path.join(sys.argv[2], os.path.basename(part.get_filename())), "wb") as out:
            out.write(part.get_payload(decode=True))
text = message.get_body(preferencelist=("plain",))
html = message.get_body(preferencelist=("html",))
print(json.dumps({
    "subject": str(message["subject"]),
    "from": str(message["from"]),
    "to": str(message["to"]),
    "replyTo": str(message["reply-to"]) if message["reply-to"] else None,
    "date": str(message["date"]),
    "messageId": str(message["message-id"]),
    "text": text.get_content() if text else None,
    "html": html.get_content() if html else None,
    "attachments": [
        {"name": part.get_filename(), "type": part.get_content_type(),
         "sha256": hashlib.sha256(part.get_payload(decode=True)).hexdigest()}
        for part in message.iter_attachments()
    ],
    "bareLineFeeds": raw.replace(b"\r\n", b"").count(b"\n"),
    "longestLine": max(len(line) for line in raw.split(b"\r\n")),
}))
