"""One thread at a time in sympy: a re-entrant turn, handed out in the order it was asked for,
that gives up after its wait, and that puts mpmath's process-wide precision back."""

from __future__ import annotations

import threading
import time

import mpmath
import pytest

from quizzes.grading.formula import serial
from quizzes.grading.formula.serial import Busy, sympy_turn


def test_the_turn_puts_mpmaths_precision_back():
    before = mpmath.mp.prec
    with sympy_turn():
        mpmath.mp.prec = 200  # what an interrupted sympy step can leave behind
    assert mpmath.mp.prec == before


def test_the_turn_is_reentrant_in_one_thread():
    with sympy_turn(), sympy_turn(wait=0.01):
        pass


def hold_the_turn(entered: threading.Event, release: threading.Event) -> threading.Thread:
    def hold():
        with sympy_turn():
            entered.set()
            release.wait(10)

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    assert entered.wait(10)
    return holder


def test_a_waiter_gives_up_after_its_wait_and_leaves_the_line():
    entered, release = threading.Event(), threading.Event()
    holder = hold_the_turn(entered, release)
    with pytest.raises(Busy):
        with sympy_turn(wait=0.05):
            pass
    release.set()
    holder.join(10)
    with sympy_turn(wait=0.5):  # the line is empty again: nobody is left waiting ahead
        pass


def test_the_turn_goes_to_waiting_threads_in_the_order_they_asked():
    entered, release = threading.Event(), threading.Event()
    holder = hold_the_turn(entered, release)
    order: list[int] = []

    def wait_for_turn(number: int) -> None:
        with sympy_turn():
            order.append(number)

    waiters = []
    for number in range(4):
        waiter = threading.Thread(target=wait_for_turn, args=(number,), daemon=True)
        waiter.start()
        waiters.append(waiter)
        deadline = time.monotonic() + 10
        while len(serial._lock._queue) < number + 1 and time.monotonic() < deadline:
            time.sleep(0.001)  # until this waiter stands in line
    release.set()
    for thread in [holder, *waiters]:
        thread.join(10)
    assert order == [0, 1, 2, 3]
