"""Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe).

No websocket and no package: Chromium reads commands on fd 3 and writes replies and events
on fd 4, one JSON object each, ended by a NUL byte. Every wait has a deadline; the browser
runs in a process group of its own and is killed with it if it does not close.
Used by tests/test_class_report_browser.py and bench/class_report.py.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
    "--remote-debugging-pipe",
]


ON_THREE_AND_FOUR = """
import os, sys
commands, events = int(sys.argv[1]), int(sys.argv[2])
os.dup2(commands, 3)
os.dup2(events, 4)
os.close(commands)
os.close(events)
os.execv(sys.argv[3], sys.argv[3:])
"""


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    return None


class BrowserError(Exception):
    pass


class Browser:
    """One headless Chromium, one page. Use as a context manager."""

    def __init__(self, executable: str, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="lab-chromium-")
        commands_read, commands_write = os.pipe()
        events_read, events_write = os.pipe()
        # Above 4, so that placing them on 3 and 4 cannot overwrite one another. A small Python
        # program does the placing and then becomes Chromium (no preexec_fn, which is not safe
        # in a process with threads).
        theirs = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (commands_read, events_write)]
        for fd in (commands_read, events_write):
            os.close(fd)
        self.process = subprocess.Popen(
            [sys.executable, "-c", ON_THREE_AND_FOUR, *map(str, theirs), executable, *CHROMIUM_FLAGS,
             f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=theirs, start_new_session=True,
        )
        for fd in theirs:
            os.close(fd)
        self.commands, self.events_fd = commands_write, events_read
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session = ""

    def __enter__(self) -> "Browser":
        try:
            target = self.call("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
            self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True},
                                     session=False)["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                self.call(f"{domain}.enable")
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ the protocol

    def send(self, method: str, params: dict | None, session: bool) -> int:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self.commands, data):]
        return self.next_id

    def receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("Chromium did not answer in time")
            with selectors.DefaultSelector() as selector:
                selector.register(self.events_fd, selectors.EVENT_READ)
                if not selector.select(timeout=left):
                    continue
            chunk = os.read(self.events_fd, 1 << 20)
            if not chunk:
                raise BrowserError("Chromium closed its DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: dict | None = None, session: bool = True) -> dict[str, Any]:
        number = self.send(method, params, session)
        deadline = time.monotonic() + self.timeout
        while True:
            message = self.receive(deadline)
            if message.get("id") == number:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def wait_for(self, method: str) -> dict[str, Any]:
        for event in self.events:
            if event["method"] == method:
                return event
        deadline = time.monotonic() + self.timeout
        while True:
            message = self.receive(deadline)
            if "method" in message:
                self.events.append(message)
                if message["method"] == method:
                    return message

    # ------------------------------------------------------------ what the tests use

    def open(self, url: str, width: int = 1280, height: int = 900) -> float:
        """Load `url`; return the seconds from the navigation until its load event."""
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.events.clear()
        started = time.monotonic()
        self.call("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")
        return time.monotonic() - started

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise BrowserError(f"script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def console_errors(self) -> list[str]:
        """Console errors, uncaught exceptions and browser log errors (a blocked request, a CSP report)."""
        errors = []
        for event in self.events:
            params = event.get("params", {})
            if event["method"] == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                errors.append(" ".join(str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", [])))
            elif event["method"] == "Runtime.exceptionThrown":
                errors.append(str(params.get("exceptionDetails", {}).get("text")))
            elif event["method"] == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                errors.append(params["entry"].get("text", ""))
        return errors

    def requested_urls(self) -> list[str]:
        return [event["params"]["request"]["url"] for event in self.events
                if event["method"] == "Network.requestWillBeSent"]

    def screenshot(self, path: Path, width: int = 1280, most: int = 100_000) -> None:
        """The page as a PNG, `width` pixels wide, from the top down to `most` pixels."""
        size = self.call("Page.getLayoutMetrics")["cssContentSize"]
        height = min(int(size["height"]) + 1, most)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        data = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                    "clip": {"x": 0, "y": 0, "width": width, "height": height,
                                                             "scale": 1}})["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            if self.process.poll() is None:
                self.send("Browser.close", None, session=False)
                self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        finally:
            if self.process.poll() is None:
                try:
                    os.killpg(self.process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.process.wait(timeout=5)
            for fd in (self.commands, self.events_fd):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self.profile, ignore_errors=True)
