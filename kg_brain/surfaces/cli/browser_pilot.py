"""Driving Neo4j Browser in the system's headless Chromium (Selenium with Debian's chromedriver):
log in, read the guide the server opened, click its blocks, read the result frames, take
pictures. Used by `kg-brain browse --screenshots` and by the Browser test; it never downloads a
browser or a driver (both paths are given, so Selenium Manager has nothing to look up).
"""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg_brain.base.errors import SetupError

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.remote.webelement import WebElement

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars")
DRAWER = '[data-testid="guidesDrawer"]'
FRAME = '[data-testid="frame"]'
_COUNTS = re.compile(r"Displaying (\d+) nodes?, (\d+) relationships?")
_DONE = re.compile(r"completed after|no changes, no records|Successfully set")


@dataclass(frozen=True)
class Block:
    """A runnable block of the guide: what it sets (`param`) or runs (`query`), and its text."""

    param: str | None
    query: str | None
    text: str


@dataclass(frozen=True)
class FrameResult:
    command: str
    nodes: int
    relationships: int
    error: str | None
    text: str


@contextmanager
def chromium(width: int = 1600, height: int = 1000) -> Iterator[WebDriver]:
    """Headless Chromium with a fresh profile, torn down afterwards."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as exc:
        raise SetupError("driving the Browser needs Selenium: pip install 'kg-brain[browser]'"
                         ) from exc
    for path in (CHROMIUM, CHROMEDRIVER):
        if not path.exists():
            raise SetupError(f"{path} is missing: apt-get install -y chromium chromium-driver")
    with tempfile.TemporaryDirectory(prefix="kg-brain-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = str(CHROMIUM)
        for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"):
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
        try:
            yield driver
        finally:
            driver.quit()


class BrowserPilot:
    """One logged-in Neo4j Browser page."""

    def __init__(self, driver: WebDriver, timeout_s: float = 30.0) -> None:
        self.driver = driver
        self.timeout_s = timeout_s

    def wait(self, what: str, check: Callable[[], Any], timeout_s: float | None = None) -> Any:
        """Poll until `check` returns something truthy; a readable error names what never came."""
        from selenium.common.exceptions import StaleElementReferenceException

        deadline = time.monotonic() + (timeout_s or self.timeout_s)
        while time.monotonic() < deadline:
            try:
                found = check()
            except StaleElementReferenceException:  # React replaced the element: look again
                found = None
            if found:
                return found
            time.sleep(0.2)
        raise TimeoutError(f"Neo4j Browser: no {what} after {timeout_s or self.timeout_s:.0f}s")

    def _all(self, css: str, root: Any = None) -> list[WebElement]:
        from selenium.webdriver.common.by import By

        return (root or self.driver).find_elements(By.CSS_SELECTOR, css)

    def log_in(self, browser_url: str, user: str, password: str) -> None:
        self.driver.get(browser_url)

        def form() -> list[WebElement] | None:
            fields = [e for e in self._all('input[data-testid="username"], '
                                           'input[data-testid="password"]')
                      if e.is_displayed() and e.is_enabled()]
            return fields if len(fields) == 2 else None

        fields = self.wait("connect form", form)
        fields[0].clear()
        fields[0].send_keys(user)
        fields[1].send_keys(password)
        self._all('button[data-testid="connect"]')[0].click()
        self.wait("connection", lambda: self._top_command().startswith(":server connect")
                  or self.guide_open())

    def guide_open(self) -> bool:
        return bool(self._all(f"{DRAWER} pre.runnable"))

    def guide_title(self) -> str:
        self.wait("guide", self.guide_open)
        return str(self._all(DRAWER)[0].text.splitlines()[0])

    def style_result(self, style_url: str) -> FrameResult:
        """The frame of the `:style <url>` command the server ran on connect."""
        frame = self.wait("style frame", lambda: next(
            (f for f in self._all(FRAME) if self._command(f) == f":style {style_url}"), None))
        return self._result(frame)

    def slide_count(self) -> int:
        self.wait("guide", self.guide_open)
        pages = [str(e.get_attribute("data-testid")).rsplit("-", 1)[1]
                 for e in self._all('[data-testid^="pagination-"]')]  # 1 2 3 ... 9
        return max((int(p) for p in pages if p.isdigit()), default=1)

    def next_slide(self) -> None:
        before = self.blocks()
        self._all('[data-testid="guideNextSlide"]')[0].click()
        self.wait("next slide", lambda: self.blocks() != before)

    def blocks(self) -> list[Block]:
        return [Block(e.get_attribute("data-param"), e.get_attribute("data-query"),
                      str(e.get_attribute("textContent")).strip())
                for e in self._all(f"{DRAWER} pre.runnable")]

    def run_block(self, index: int) -> FrameResult:
        """Click the play icon of the index-th block of the slide; wait for its frame's result."""
        top = self._all(FRAME)[0] if self._all(FRAME) else None
        block = self.wait("guide block", lambda: self._all(f"{DRAWER} pre.runnable")[index:])[0]
        self._all("i", block)[0].click()
        return self._new_result(top)

    def run_command(self, command: str) -> FrameResult:
        """Type a command into the main editor and run it (as a person would)."""
        from selenium.webdriver.common.keys import Keys

        top = self._all(FRAME)[0]
        self._all("#monaco-main-editor")[0].click()
        editor = self._all('[data-testid="activeEditor"] textarea')[0]
        editor.send_keys(command)
        editor.send_keys(Keys.CONTROL, Keys.ENTER)
        return self._new_result(top)

    def _new_result(self, top: WebElement | None) -> FrameResult:
        """The result of the frame that appears above `top` (new frames go to the top)."""
        frame = self.wait("new frame", lambda: next(
            (f for f in self._all(FRAME)[:1] if f != top), None))
        try:
            return self.wait("result", lambda: self._finished(frame))
        except TimeoutError as exc:
            raise TimeoutError(f"{exc}; the frame reads {frame.text[:600]!r}") from exc

    def _finished(self, frame: WebElement) -> FrameResult | None:
        result = self._result(frame)
        done = _DONE.search(result.text)
        return result if result.error or result.nodes or done else None

    def _result(self, frame: WebElement) -> FrameResult:
        text = str(frame.text)
        counts = _COUNTS.search(text)
        errors = [e.text for e in self._all('[data-testid="cypherFrameErrorMessage"]', frame)]
        if not errors and re.search(r"^ERROR", text, flags=re.M):
            errors = [text]
        if counts:  # the overview panel's own numbers, when it is unfolded
            nodes, rels = int(counts.group(1)), int(counts.group(2))
        else:
            nodes, rels = len(self._all("g.node", frame)), len(self._all("g.relationship", frame))
        return FrameResult(self._command(frame), nodes, rels, "\n".join(errors) or None, text)

    def _command(self, frame: WebElement) -> str:
        found = self._all('[data-testid="frameCommand"]', frame)
        return str(found[0].text).strip() if found else ""

    def _top_command(self) -> str:
        frames = self._all(FRAME)
        return self._command(frames[0]) if frames else ""

    def settle_graph(self, quiet_s: float = 1.5) -> None:
        """Wait until the newest frame's force layout stops moving its nodes (for pictures)."""
        frame = self._all(FRAME)[0]

        def positions() -> tuple[str, ...]:
            return tuple(str(e.get_attribute("transform")) for e in self._all("g.node", frame))

        last, since = positions(), time.monotonic()
        deadline = since + self.timeout_s
        while time.monotonic() < deadline:
            time.sleep(0.3)
            now = positions()
            if now != last:
                last, since = now, time.monotonic()
            elif now and time.monotonic() - since >= quiet_s:
                return

    def hide_overview(self) -> None:
        """Fold the newest frame's overview panel away, so it covers none of the graph."""
        frame = self._all(FRAME)[0]
        for chevron in self._all('[aria-label="Collapse the node properties display"]', frame):
            chevron.click()

    def toggle_fullscreen(self) -> None:
        """The newest frame's Fullscreen / Close fullscreen button."""
        frame = self._all(FRAME)[0]
        self._all('button[title="Fullscreen"], button[title="Close fullscreen"]', frame)[0].click()

    def screenshot(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.driver.save_screenshot(str(path))
        return path
