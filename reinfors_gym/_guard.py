"""One call at a time on an environment, from any number of threads.

The core releases the GIL while it simulates, so a second Python thread could otherwise enter
the same object mid-call. A guarded call that finds another one running raises
`ConcurrentCallError` naming both; `close()` instead waits for the running call, then closes.
An object used in a forked child whose parent made its worker threads is refused the same way
as a closed one: those threads do not exist in the child.
"""

from __future__ import annotations

import os
import threading

from .errors import ClosedEnvironmentError, ConcurrentCallError


class CallGuard:
    """Admits one call at a time; `what` names the guarded object in messages."""

    __slots__ = ("_lock", "_running", "_closing", "_what", "_pid")

    def __init__(self, what: str):
        self._lock = threading.Lock()
        self._running = ""
        self._closing = False
        self._what = what
        self._pid = os.getpid()

    def enter(self, call: str) -> None:
        """Starts `call`, or raises if another call is running in another thread."""
        if not self._lock.acquire(blocking=False):
            running = self._running or "another call"
            if self._closing:
                raise ClosedEnvironmentError(
                    f"{call}() was called while this {self._what} is being closed in another thread"
                )
            raise ConcurrentCallError(
                f"{call}() was called on this {self._what} while {running}() is running in "
                f"another thread; an {self._what} serves one call at a time (use one per "
                "thread, or a lock around the calls)"
            )
        self._running = call

    def enter_closing(self) -> None:
        """Starts `close()` once the running call, if any, has finished; calls refused from
        now on are told the object is closing. In a forked child the lock is replaced: a
        thread of the parent may have held it."""
        if self.forked:
            self._lock = threading.Lock()
        self._closing = True  # before waiting: a call refused meanwhile is told why
        self._lock.acquire()
        self._running = "close"

    def exit(self) -> None:
        self._running = ""
        self._lock.release()

    @property
    def forked(self) -> bool:
        """True in a process forked from the one that created the object."""
        return os.getpid() != self._pid

    def check_same_process(self) -> None:
        if self.forked:
            raise ClosedEnvironmentError(
                f"this {self._what} was created in process {self._pid}; its worker threads "
                "did not survive fork(), so it cannot be used here: create a new one in this "
                "process"
            )
