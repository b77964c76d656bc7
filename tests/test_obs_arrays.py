"""`copy=True` writes each call's observations into an array nothing outside refers to: one it
returned before and that was dropped since, else a new one. Never one still held, however it
is held."""

import weakref

import numpy as np
import pytest

from reinfors_gym import CarRacingVectorEnv
from reinfors_gym._obs_arrays import KEEP, ObservationArrays

TEMPLATE = np.zeros((2, 4, 4, 3), np.uint8)


def test_a_dropped_array_is_handed_out_again():
    arrays = ObservationArrays(TEMPLATE)
    first = arrays.next()
    gone = weakref.ref(first)
    del first
    again = arrays.next()
    assert again is gone(), "the dropped array is reused, not freed and allocated anew"
    assert again.shape == TEMPLATE.shape and again.dtype == TEMPLATE.dtype


def test_a_held_array_is_never_handed_out_again():
    arrays = ObservationArrays(TEMPLATE)
    held = arrays.next()
    held[:] = 7
    for _ in range(4 * KEEP):
        other = arrays.next()
        assert other is not held and not np.shares_memory(other, held)
        other[:] = 0
    assert (held == 7).all()


@pytest.mark.parametrize(
    "hold",
    [
        lambda a: a[1:],  # a view: its base is the array
        lambda a: memoryview(a),  # a buffer export
        lambda a: [a],  # a container
        lambda a: np.asarray(a),  # the same object
    ],
    ids=["view", "memoryview", "list", "asarray"],
)
def test_whatever_refers_to_an_array_keeps_it(hold):
    arrays = ObservationArrays(TEMPLATE)
    array = arrays.next()
    array[:] = 9
    keeper = hold(array)
    gone = weakref.ref(array)
    del array
    for _ in range(4 * KEEP):
        other = arrays.next()
        assert other is not gone()
        other[:] = 0
    assert (gone() == 9).all()
    del keeper


def test_an_array_changed_in_place_is_not_written_again():
    arrays = ObservationArrays(TEMPLATE)
    read_only, reshaped = arrays.next(), arrays.next()
    read_only.flags.writeable = False
    reshaped.shape = (-1,)
    gone = [weakref.ref(read_only), weakref.ref(reshaped)]
    del read_only, reshaped
    for _ in range(2):
        fresh = arrays.next()
        assert all(fresh is not g() for g in gone)
        assert fresh.shape == TEMPLATE.shape and fresh.flags.writeable


def test_at_most_keep_arrays_are_kept():
    arrays = ObservationArrays(TEMPLATE)
    held = [arrays.next() for _ in range(KEEP + 2)]
    gone = weakref.ref(held[0])
    del held
    assert gone() is None, "arrays beyond KEEP are the caller's alone, freed when dropped"


def test_a_stepping_loop_reuses_the_batch_it_dropped():
    vec = CarRacingVectorEnv(2, copy=True)
    obs, _ = vec.reset(seed=0)
    actions = np.full((2, 3), 0.3)
    obs, *_ = vec.step(actions)
    dropped = weakref.ref(obs)
    reference = CarRacingVectorEnv(2, copy=True)
    reference.reset(seed=0)
    reference.step(actions)
    seen = []
    for _ in range(4):
        obs, *_ = vec.step(actions)  # drops the batch before
        seen.append(obs is dropped())
        expected, *_ = reference.step(actions)
        np.testing.assert_array_equal(obs, expected)
    assert any(seen), "a dropped batch is written again instead of a new one"
    vec.close()
    reference.close()
