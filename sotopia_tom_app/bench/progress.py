"""Live progress of LLM calls on a tqdm bar: calls done and tokens generated, every second.

An episode of the embedded 135M model on two CPU cores takes a minute or more, and a bar that
moves only when an episode ends looks stuck; the calls finish every few seconds, so showing
them tells a slow model from a hung one.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from types import TracebackType
from typing import Any

REFRESH_S = 1.0


class CallProgress:
    """Keep a bar's postfix at the calls and completion tokens of a client's ``stats``.

    Use it as ``async with CallProgress(bar, client.stats):`` around the play. ``steps``, if
    given, is read at each refresh for the bar's position (e.g. the steps an episode played);
    ``last`` is shown too when set (the bench sets it to the last finished episode).

    Example:
        >>> import asyncio
        >>> from tqdm import tqdm
        >>> from sotopia_tom_env.llm import ClientStats
        >>> async def play(bar, stats):
        ...     async with CallProgress(bar, stats):
        ...         stats.calls, stats.completion_tokens = 3, 120
        >>> with tqdm(disable=True) as bar:
        ...     asyncio.run(play(bar, ClientStats()))
        ...     bar.postfix
        'calls=3, tokens=120'
    """

    def __init__(
        self,
        bar: Any,
        stats: Any,
        steps: Callable[[], int] | None = None,
        refresh_s: float = REFRESH_S,
    ) -> None:
        self.bar, self.stats, self.steps, self.refresh_s = bar, stats, steps, refresh_s
        self.last = ""
        self._task: asyncio.Task[None] | None = None

    def show(self) -> None:
        """Refresh the bar now."""
        shown = {"calls": self.stats.calls, "tokens": self.stats.completion_tokens}
        if self.last:
            shown["last"] = self.last
        if self.steps is not None:
            self.bar.n = self.steps()
        self.bar.set_postfix(shown)

    async def _refresh(self) -> None:
        while True:
            self.show()
            await asyncio.sleep(self.refresh_s)

    async def __aenter__(self) -> CallProgress:
        self._task = asyncio.create_task(self._refresh())
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self.show()  # the final totals stay on the bar
