"""A headless Chromium driven over the DevTools protocol, for the viewer's tests.

Chromium's ``--remote-debugging-pipe`` reads protocol messages on its file
descriptor 3 and writes replies on 4, each a JSON object ended by a NUL byte;
no websocket library and no port are needed.  :class:`Browser` opens one page,
evaluates JavaScript in it and presses keys as a person would (the page sees
``keydown`` events with their ``key``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from types import TracebackType
from typing import Any

#: Keys the tests press: DOM key name -> (code, Windows virtual key code).
KEY_CODES = {
    "ArrowRight": ("ArrowRight", 39),
    "ArrowLeft": ("ArrowLeft", 37),
    "Home": ("Home", 36),
    "End": ("End", 35),
    "Tab": ("Tab", 9),
    "Enter": ("Enter", 13),
}


def chromium() -> str | None:
    """The installed Chromium (or Chrome), if any."""
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


class Browser:
    """One headless Chromium with one page (use as a context manager)."""

    def __init__(self, profile: Path) -> None:
        binary = chromium()
        assert binary is not None, "no Chromium installed"
        to_browser_r, self._send = os.pipe()
        self._recv, from_browser_w = os.pipe()

        def fds() -> None:  # in the child: the protocol on fds 3 (in) and 4 (out)
            # through fresh copies, as either end may already be 3 or 4
            read_end, write_end = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self._proc = subprocess.Popen(
            [
                binary,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--remote-debugging-pipe",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # fds 3 and 4 must survive to exec: Python's own descriptors are not
            # inheritable (PEP 446), so keeping the inheritable ones leaks nothing else
            preexec_fn=fds,  # the tests start no threads before it
            close_fds=False,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._id = 0
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]

    def __enter__(self) -> Browser:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self._proc.kill()
        self._proc.wait(timeout=30)
        os.close(self._send)
        os.close(self._recv)

    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        """Send one command and wait for its reply (events met meanwhile are dropped)."""
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params}
        if session:
            message["sessionId"] = self._session
        os.write(self._send, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result

    def _read(self, timeout: float = 60.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self._recv, 65536)
            if not chunk:
                raise RuntimeError("Chromium closed the protocol pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        decoded: dict[str, Any] = json.loads(message)
        return decoded

    def open(self, url: str) -> None:
        """Load ``url`` and wait until its scripts have run."""
        self.call("Page.navigate", session=True, url=url)
        deadline = time.monotonic() + 60
        while self.eval("document.readyState") != "complete" or self.eval("location.href") != url:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not load")
            time.sleep(0.05)

    def eval(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-serialisable)."""
        reply = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True)
        if "exceptionDetails" in reply:
            raise RuntimeError(f"{expression}: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def press(self, key: str, shift: bool = False) -> None:
        """Press and release a key: a named key of :data:`KEY_CODES` or one character."""
        code, vk = KEY_CODES[key] if key in KEY_CODES else (f"Key{key.upper()}", ord(key.upper()))
        down: dict[str, Any] = {"key": key, "code": code, "windowsVirtualKeyCode": vk, "modifiers": 8 * shift}
        if len(key) == 1 or key == "Enter":
            down["text"] = "\r" if key == "Enter" else key
        self.call("Input.dispatchKeyEvent", session=True, type="keyDown", **down)
        self.call(
            "Input.dispatchKeyEvent", session=True, type="keyUp", key=key, code=code, windowsVirtualKeyCode=vk
        )
