"""`CollectStream`: batches collected in a background thread while the caller trains, and how
that thread hands them over (and stops)."""

from __future__ import annotations

import queue
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any

from ._infer import Infer

if TYPE_CHECKING:
    from ._batch import Batch
    from .engine import Engine


class Stopped(Exception):
    """Raised inside the producer when the stream is stopped mid-batch."""


class CollectStream:
    """Batches collected in a background thread while the caller trains.

    - ``next(stream)`` returns the next finished batch (waiting if none is ready) and fills its
      telemetry with ``wait_seconds`` (time the consumer waited) and ``policy_lag`` (weight
      updates since the batch started collecting).
    - An exception raised by ``infer`` (or a contract violation) stops the workers and is
      re-raised by the next ``next(stream)`` with its original traceback.
    - ``stop()`` (also on leaving the ``with`` block, or on Ctrl-C there) stops collecting at
      the next step boundary and joins the thread. What is delivered: every batch completed
      before the stop stays available to ``next()``; the batch being collected at that moment
      is discarded (``discarded_batches`` counts it); then ``next()`` raises StopIteration.
    - A stream dropped without ``stop()`` stops the same way once it is garbage: its thread
      holds no reference to it.
    - Whatever ends a collection early, the engine's next batch (from a new stream or
      ``collect``) holds only steps collected for it, ``collect_size / n_games`` per game.
    """

    def __init__(self, engine: Engine, steps: int, infer: Infer, depth: int):
        engine._acquire("collect_stream()")
        self._engine = engine
        self._state = _StreamState(depth)
        self._thread = threading.Thread(
            target=_produce,
            args=(engine, steps, infer, self._state),
            name="reinfors-gym-collector",
            daemon=True,
        )
        engine._stream = (self._state, self._thread)
        self._thread.start()
        # Dropped without stop(): the producer sees the flag at its next step and ends.
        weakref.finalize(self, self._state.stop.set)

    @property
    def discarded_batches(self) -> int:
        return self._state.discarded_batches

    @property
    def delivered_batches(self) -> int:
        return self._state.delivered_batches

    def __iter__(self) -> CollectStream:
        return self

    def __next__(self) -> Batch:
        state = self._state
        start = time.perf_counter()
        while True:
            try:
                item = state.queue.get(timeout=0.1)
                break
            except queue.Empty:
                continue
        if item is _END:
            state.queue.put(_END)  # later calls stop too
            raise StopIteration
        if isinstance(item, _Failure):
            state.stop.set()
            state.queue.put(_END)
            raise item.error.with_traceback(item.error.__traceback__)
        state.slots.release()
        item.telemetry["wait_seconds"] = time.perf_counter() - start
        item.telemetry["policy_lag"] = float(self._engine.weights_version - item.weights_version)
        state.delivered_batches += 1
        return item

    def stop(self, timeout: float | None = None) -> None:
        """Stops collecting and joins the worker thread (idempotent)."""
        self._state.stop.set()
        self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def __enter__(self) -> CollectStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _StreamState:
    """What a stream shares with its producer thread (never the stream itself, so a dropped
    stream can be collected and its finalizer stop the thread)."""

    def __init__(self, depth: int):
        self.queue: queue.Queue[Any] = queue.Queue()
        self.slots = threading.Semaphore(depth)
        self.stop = threading.Event()
        self.discarded_batches = 0
        self.delivered_batches = 0


def _produce(engine: Engine, steps: int, infer: Infer, state: _StreamState) -> None:
    try:
        while not state.stop.is_set():
            # Wait for room in the queue, but stay responsive to stop().
            while not state.slots.acquire(timeout=0.05):
                if state.stop.is_set():
                    return
            try:
                batch = engine._collect(steps, infer, state.stop)
            except Stopped:
                state.discarded_batches += 1
                return
            state.queue.put(batch)
    except BaseException as e:  # noqa: BLE001 - handed to the consumer
        state.queue.put(_Failure(e))
    finally:
        state.queue.put(_END)
        engine._busy.release()


class _Failure:
    def __init__(self, error: BaseException):
        self.error = error


_END = object()
