"""A progress bar for the long commands (`reinfors-gym bench`, `python -m reinfors_gym.parity`).

On a terminal it shows what is running, how far along it is and the time left (tqdm's estimate
from the average pace so far); lines written through `note` appear above the bar. Off a
terminal (a pipe, a log file, CI) it is silent, so logs hold results rather than bar redraws.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import TextIO

from tqdm import tqdm


class ProgressBar:
    """Counts units of work towards `total`; silent unless `stream` is a terminal."""

    def __init__(
        self,
        total: int,
        unit: str,
        *,
        stream: TextIO | None = None,
        enabled: bool | None = None,
    ) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self.enabled = _is_terminal(self._stream) if enabled is None else enabled
        self._bar = tqdm(
            total=total,
            unit=unit,
            file=self._stream,
            disable=not self.enabled,
            dynamic_ncols=True,
            bar_format="{desc} {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} "
            "[{elapsed} elapsed, {remaining} left]",
        )

    @property
    def total(self) -> int:
        return int(self._bar.total or 0)

    @property
    def done(self) -> int:
        return int(self._bar.n)

    def running(self, what: str) -> None:
        """Names the unit of work now under way."""
        self._bar.set_description_str(what, refresh=True)

    def advance(self, n: int = 1) -> None:
        self._bar.update(n)

    def set_total(self, total: int) -> None:
        self._bar.total = max(self.done, total)
        self._bar.refresh()

    def shrink(self, n: int) -> None:
        """Drops `n` units that will not run (e.g. the later trials of a skipped measurement)."""
        self._bar.total = max(self.done, self.total - n)
        self._bar.refresh()

    def note(self, line: str) -> None:
        """A line of output above the bar (only where the bar is shown)."""
        if self.enabled:
            self._bar.write(line, file=self._stream)

    def close(self) -> None:
        self._bar.close()

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed or not a real file
        return False
