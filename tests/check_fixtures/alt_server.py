"""A correct lesson server written unlike the solution: no class, no tables, one if-chain.

The kit's tests check that it scores full marks on the server checks, and make buggy
servers from it by replacing one line (tests/test_checks_servers.py): keep each
replaced line unique in this file.
"""

import json
import sys

VERSIONS = ["2025-03-26", "2024-11-05"]
state = "new"


def send(message):
    message["jsonrpc"] = "2.0"
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def fail(msg_id, code, text, data=None):
    error = {"code": code, "message": text}
    if data is not None:
        error["data"] = data
    send({"id": msg_id, "error": error})


def answer(msg):
    global state
    if not isinstance(msg, dict):  # JSON, but not a request: an array, a number
        return fail(None, -32600, "Invalid request")
    method = msg.get("method")
    if "id" not in msg:
        if method == "notifications/initialized" and state == "waiting":
            state = "ready"
        return  # a notification: never answered
    msg_id = msg["id"]
    if method == "ping":
        return send({"id": msg_id, "result": {}})
    if method == "initialize":
        if state != "new":
            return fail(msg_id, -32600, "Already initialized")
        version = (msg.get("params") or {}).get("protocolVersion")
        if version not in VERSIONS:
            return fail(msg_id, -32602, "Unsupported version", {"requested": version, "supported": VERSIONS})
        state = "waiting"
        capabilities = {"tools": {"listChanged": False}}
        return send({"id": msg_id, "result": {"protocolVersion": version, "capabilities": capabilities,
                                              "serverInfo": {"name": "alt", "version": "1.0"}}})
    if state != "ready":
        return fail(msg_id, -32600, "Not initialized")
    if method == "tools/list":
        return send({"id": msg_id, "result": {"tools": []}})
    fail(msg_id, -32601, "Unknown method: " + str(method))


for line in sys.stdin:
    if not line.strip():
        continue
    try:
        msg = json.loads(line)
    except ValueError:
        fail(None, -32700, "Parse error")
        continue
    answer(msg)
