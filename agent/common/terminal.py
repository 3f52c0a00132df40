"""What reaches the user's terminal: text made safe, progress bars and spinners (stderr, only on a terminal unless
asked), and the progress of a long set-up step (`StepProgress`: on any stderr, since a first run that builds an index
for minutes must say so in a CI log or a nohup file too).

A question, a file name, a document title, corpus text or an answer comes from someone's data, so it is sanitised
before it reaches the terminal: control characters and escape sequences removed (a crafted title cannot move the
cursor, retitle the window or clear the screen) and any secret redacted.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

from agent.common.redact import redact

_UNSAFE = re.compile(
    r"\x1b\[[0-?]*[ "
    r"-/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)?|\x1b[@-_]?|[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
)


def strip_controls(text: str) -> str:
    """Without escape sequences, control characters (newlines and tabs kept) and bidi overrides: text from a
    user's files or an API that will be printed on a terminal."""
    return _UNSAFE.sub("", text)


def terminal_text(text: str) -> str:
    """Several lines for the terminal: secrets redacted, escape sequences and control characters removed (newlines
    and tabs kept), so an answer or a listing built from data can be printed as it is."""
    return strip_controls(redact(str(text)))


def terminal_safe(text: str, limit: int = 200) -> str:
    """One line with no control characters, escape sequences or bidi overrides, secrets redacted, at most `limit`
    characters."""
    text = strip_controls(redact(str(text))).replace("\n", " ").replace("\t", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


PROGRESS_ENV = "SPARKIT_PROGRESS"


def progress_wanted(stream: TextIO | None = None, enabled: bool | None = None) -> bool:
    """`enabled` when given; else SPARKIT_PROGRESS (1 forces progress, 0 silences it); else whether `stream`
    (stderr) is a terminal, so logs and pipes get no bars."""
    if enabled is not None:
        return enabled
    forced = os.environ.get(PROGRESS_ENV, "").strip().lower()
    if forced in ("1", "true", "yes", "on"):
        return True
    if forced in ("0", "false", "no", "off"):
        return False
    stream = stream or sys.stderr
    return bool(getattr(stream, "isatty", lambda: False)())


def setup_progress_wanted(enabled: bool | None = None) -> bool:
    """Whether a long set-up step reports itself on stderr: `enabled` when given, else unless SPARKIT_PROGRESS is 0
    (or `sparkit --quiet`); unlike node progress it also goes to a file or a pipe."""
    if enabled is not None:
        return enabled
    return os.environ.get(PROGRESS_ENV, "").strip().lower() not in ("0", "false", "no", "off")


_active_spinners: list[Spinner] = []


class Spinner:
    """`with Spinner("loading models"):` a spinner with the seconds elapsed on stderr while a blocking step runs
    (a worker thread draws it); silent unless progress is wanted (`progress_wanted`)."""

    FRAMES = "|/-\\"

    def __init__(
        self, label: str, *, enabled: bool | None = None, stream: TextIO | None = None, interval_s: float = 0.2
    ):
        self.stream = stream or sys.stderr
        self.enabled = progress_wanted(self.stream, enabled)
        self.label = terminal_safe(label, 80)
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.frames_drawn = 0

    def __enter__(self) -> Spinner:
        if self.enabled:
            self._started = time.monotonic()
            self._paused = threading.Event()
            self._drawing = threading.Lock()
            self._thread = threading.Thread(target=self._spin, name="sparkit-spinner", daemon=True)
            _active_spinners.append(self)
            self._thread.start()
        return self

    def _spin(self) -> None:
        while not self._stop.is_set():
            with self._drawing:
                if not self._paused.is_set():
                    frame = self.FRAMES[self.frames_drawn % len(self.FRAMES)]
                    self.stream.write(f"\r{frame} {self.label} ({time.monotonic() - self._started:.0f} s)")
                    self.stream.flush()
                    self.frames_drawn += 1
            self._stop.wait(self.interval_s)

    def pause(self) -> None:
        """Stop drawing and end the spinner's line, so another step's lines can be printed below it."""
        with self._drawing:
            if not self._paused.is_set():
                self._paused.set()
                self.stream.write("\n")
                self.stream.flush()

    def resume(self) -> None:
        self._paused.clear()

    def __exit__(self, *exc: object) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            _active_spinners.remove(self)
            self.stream.write(f"\r{self.label}: done in {time.monotonic() - self._started:.1f} s\n")
            self.stream.flush()


class Progress:
    """`with progress.task("parsing", total) as bar: bar.advance(detail=name)`; silent when disabled."""

    def __init__(self, enabled: bool | None = None, stream: TextIO | None = None, width: int = 28):
        self.stream = stream or sys.stderr
        self.enabled = progress_wanted(self.stream, enabled)
        self.width = width

    def task(self, label: str, total: int) -> _Bar:
        return _Bar(self, label, total)

    def line(self, text: str) -> None:
        if self.enabled:
            print(terminal_safe(text, 300), file=self.stream, flush=True)


class _Bar:
    def __init__(self, owner: Progress, label: str, total: int):
        self.owner, self.label, self.total, self.done = owner, label, max(total, 0), 0
        self._last = 0.0

    def __enter__(self) -> _Bar:
        self._draw("")
        return self

    def advance(self, n: int = 1, detail: str = "") -> None:
        self.done = min(self.total, self.done + n) if self.total else self.done + n
        now = time.monotonic()
        if now - self._last >= 0.1 or self.done >= self.total:
            self._draw(detail)

    def _draw(self, detail: str) -> None:
        if not self.owner.enabled:
            return
        self._last = time.monotonic()
        filled = int(self.owner.width * self.done / self.total) if self.total else 0
        bar = "#" * filled + "." * (self.owner.width - filled)
        text = f"\r{self.label:<9} [{bar}] {self.done}/{self.total} {terminal_safe(detail, 50):<50}"
        self.owner.stream.write(text)
        self.owner.stream.flush()

    def __exit__(self, *exc: object) -> None:
        if self.owner.enabled:
            self.owner.stream.write("\n")
            self.owner.stream.flush()


def fmt_duration(seconds: float) -> str:
    """'45 s', '3 min 20 s', '1 h 05 min': durations people read in a log."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class StepProgress:
    """Progress of one long step (building an index) on stderr, whatever stderr is: a start line, then a bar on a
    terminal or, elsewhere (a CI log, a nohup file), one line about every `every` of the work with its rate and
    ETA, and an end line. A spinner turning meanwhile pauses. Silent when `setup_progress_wanted` says so.

        with StepProgress("encoding", total=5183, unit="records") as step:
            step.advance(256)
    """

    def __init__(
        self,
        label: str,
        total: int,
        *,
        unit: str = "records",
        start: str = "",
        done: str = "",
        stream: TextIO | None = None,
        enabled: bool | None = None,
        every: float = 0.1,
        width: int = 28,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.stream = stream or sys.stderr
        self.enabled = setup_progress_wanted(enabled)
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.label, self.total, self.unit = terminal_safe(label, 80), max(0, total), unit
        self.start_text, self.done_text = start, done
        self.every, self.width, self.clock = every, width, clock
        self.done = 0
        self._next_report = every
        self._last_draw = 0.0
        self._paused: list[Spinner] = []

    def _print(self, text: str) -> None:
        print(terminal_safe(text, 400), file=self.stream, flush=True)

    def __enter__(self) -> StepProgress:
        self.started = self.clock()
        if self.enabled:
            for spinner in list(_active_spinners):  # its line is ended; it turns again once this step is done
                spinner.pause()
                self._paused.append(spinner)
            if self.start_text:
                self._print(self.start_text)
        return self

    def rate(self) -> float:
        elapsed = self.clock() - self.started
        return self.done / elapsed if elapsed > 0 else 0.0

    def advance(self, n: int) -> None:
        self.done = min(self.total, self.done + n) if self.total else self.done + n
        if not self.enabled or not self.total:
            return
        fraction = self.done / self.total
        if self.tty:
            if self.clock() - self._last_draw >= 0.1 or self.done >= self.total:
                self._last_draw = self.clock()
                filled = int(self.width * fraction)
                self.stream.write(
                    f"\r  {self.label} [{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total} "
                    f"{self.unit}, {self.rate():.0f}/s, {self._eta()}   "
                )
                self.stream.flush()
        elif fraction >= self._next_report - 1e-9 and self.done < self.total:
            while self._next_report <= fraction + 1e-9:
                self._next_report += self.every
            self._print(
                f"  {self.label}: {fraction:.0%} ({self.done:,}/{self.total:,} {self.unit}, {self.rate():.1f}/s, "
                f"{self._eta()})"
            )

    def _eta(self) -> str:
        rate = self.rate()
        return f"about {fmt_duration((self.total - self.done) / rate)} left" if rate > 0 else "estimating"

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if not self.enabled:
            return
        if self.tty:
            self.stream.write("\n")
        if exc_type is None and self.done_text:
            self._print(self.done_text.format(elapsed=fmt_duration(self.clock() - self.started)))
        for spinner in self._paused:
            spinner.resume()
