"""Headless Chromium driven over the DevTools protocol (no Selenium): load a page, collect console
errors and broken images, take a screenshot."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class PageCheck:
    console_errors: list[str]
    broken_images: int
    n_images: int
    title: str
    screenshot: bytes
    clipped_tables: int = 0  # tables wider than their box (a column scrolled out of view)


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def check_page(url: str, timeout: float = 60.0) -> PageCheck:
    """Open ``url`` in headless Chromium and report what a person would see go wrong."""
    import websocket  # websocket-client

    exe = chromium_path()
    if exe is None:
        raise RuntimeError("chromium not installed")
    profile = tempfile.mkdtemp(prefix="synthleak-chromium-")
    proc = subprocess.Popen(
        [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            f"--user-data-dir={profile}",
            "--remote-debugging-port=0",
            "--remote-allow-origins=*",
            "--window-size=1280,2000",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ws_url = None
        deadline = time.time() + timeout
        assert proc.stderr is not None
        while time.time() < deadline:
            line = proc.stderr.readline()
            m = re.search(r"DevTools listening on (ws://\S+)", line)
            if m:
                ws_url = m.group(1)
                break
        if ws_url is None:
            raise RuntimeError("chromium did not start its DevTools endpoint")
        # browser endpoint -> create a page target
        ws = websocket.create_connection(ws_url, timeout=timeout)
        msg_id = 0

        def call(sock, method, params=None, session=None):  # type: ignore[no-untyped-def]
            nonlocal msg_id
            msg_id += 1
            payload = {"id": msg_id, "method": method, "params": params or {}}
            if session:
                payload["sessionId"] = session
            sock.send(json.dumps(payload))
            want = msg_id
            while True:
                msg = json.loads(sock.recv())
                if msg.get("id") == want:
                    if "error" in msg:
                        raise RuntimeError(f"{method}: {msg['error']}")
                    return msg.get("result", {})
                events.append(msg)

        events: list[dict] = []
        target = call(ws, "Target.createTarget", {"url": "about:blank"})["targetId"]
        session = call(ws, "Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for method in ("Page.enable", "Runtime.enable", "Log.enable"):
            call(ws, method, session=session)
        call(ws, "Page.navigate", {"url": url}, session=session)
        loaded = False
        while time.time() < deadline and not loaded:
            msg = json.loads(ws.recv())
            events.append(msg)
            loaded = msg.get("method") == "Page.loadEventFired"
        time.sleep(0.5)
        result = call(
            ws,
            "Runtime.evaluate",
            {
                "expression": "JSON.stringify({n: document.images.length, "
                "broken: Array.from(document.images)"
                ".filter(i => !i.complete || i.naturalWidth === 0).length, title: document.title, "
                "clipped: Array.from(document.querySelectorAll('table'))"
                ".filter(t => t.scrollWidth > t.clientWidth + 1).length})",
                "returnByValue": True,
            },
            session=session,
        )
        info = json.loads(result["result"]["value"])
        shot = call(
            ws,
            "Page.captureScreenshot",
            {"format": "png", "captureBeyondViewport": True},
            session=session,
        )
        errors = []
        for ev in events:
            m = ev.get("method")
            p = ev.get("params", {})
            if m == "Runtime.exceptionThrown":
                errors.append(p.get("exceptionDetails", {}).get("text", "exception"))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                errors.append(str(p.get("args")))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                errors.append(p["entry"].get("text", "log error"))
        ws.close()
        return PageCheck(
            errors,
            int(info["broken"]),
            int(info["n"]),
            info["title"],
            base64.b64decode(shot["data"]),
            int(info.get("clipped", 0)),
        )
    finally:
        proc.kill()
        proc.wait(timeout=10)
        shutil.rmtree(profile, ignore_errors=True)


def artifacts_dir() -> Path:
    path = Path(__file__).resolve().parents[2] / "artifacts"
    path.mkdir(exist_ok=True)
    return path
