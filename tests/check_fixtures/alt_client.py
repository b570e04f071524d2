"""A correct lesson client written unlike the solution (one function, plain loops).

The tests check that it passes every client check, and make buggy clients from it by
replacing one line (tests/test_checks_clients.py): keep each replaced line unique.
"""

import json
import subprocess
import sys
from pathlib import Path

from model import ask
from model_setup import facts

HERE = Path(__file__).resolve().parent


def init(msg_id, version):
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "alt", "version": "2"}}
    return {"id": msg_id, "method": "initialize", "params": params}


scenario = [
    {"id": 1, "method": "tools/list"},
    init(2, "1999-01-01"),
    init(3, "2024-11-05"),
    {"id": 4, "method": "tools/list"},
    {"method": "notifications/initialized"},
    {"id": 5, "method": "tools/list"},
    {"id": 6, "method": "resources/list"},
]

server = subprocess.Popen([sys.executable, str(HERE / "server.py")], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
for message in scenario:
    full = dict(message, jsonrpc="2.0")
    print("-> " + json.dumps(full))
    server.stdin.write((json.dumps(full) + "\n").encode())
server.stdin.flush()
replies = []
while len(replies) < 6:
    line = server.stdout.readline().decode().rstrip("\n")
    if not line:
        sys.exit("the server stopped")
    print("<- " + line)
    replies.append(json.loads(line))
server.stdin.close()
server.wait(timeout=5)
capabilities = json.dumps(replies[2]["result"]["capabilities"])
question = {"role": "user", "content": "What can a server with these capabilities do? " + capabilities}
answer = ask([facts(replies[2]["result"]["capabilities"]), question], "sample", 60)
print("the model says: " + answer.text)
