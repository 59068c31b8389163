"""The words of the cases an import writes, found by a second process as it writes them.

Finding the words of a case's own texts (cases.search.text.case_words) is a third of an
import's time, all of it Python, while the database stores the rows on the other core
and mostly waits. So pass two forks a process that reads the same spool of validated
cases and sends the words back a batch ahead of the writing.

It forks only a process with no other thread: a lock held by a thread at the fork would
stay held in the copy. The child never touches the database: the parent's connection
(in the middle of its transaction) is only copied, not used, and the child leaves by
os._exit, which closes nothing of it.
"""

import contextlib
import multiprocessing
import signal
import threading

from cases.search.text import case_words

# Below this many cases, starting a process costs more than it saves.
FEWEST_CASES = 1000
# How long to wait for a batch before checking that the process still runs.
POLL_SECONDS = 1.0


def send_words(cases, batch_size, receiver, sender):
    """In the child process: the words of each of `cases()`, joined by spaces, in batches."""
    # The parent's end, copied by the fork: closed here, so that a parent that dies (killed,
    # say) closes the pipe's last reading end, and sending ends this process.
    receiver.close()
    # Ctrl-C reaches both processes; the parent stops this one as it rolls back.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        batch = []
        for case in cases():
            batch.append(" ".join(case_words(case)))
            if len(batch) == batch_size:
                sender.send(batch)
                batch = []
        if batch:
            sender.send(batch)
    except BrokenPipeError:  # the parent is gone
        pass
    except Exception as error:  # the parent raises it
        with contextlib.suppress(BrokenPipeError):
            sender.send(error)
    finally:
        sender.close()


def received_words(receiver, process):
    while True:
        while not receiver.poll(POLL_SECONDS):
            if not process.is_alive() and not receiver.poll():
                raise RuntimeError(f"the process finding words ended ({process.exitcode})")
        try:
            batch = receiver.recv()
        except EOFError:
            return
        if isinstance(batch, Exception):
            raise batch
        yield from batch


@contextlib.contextmanager
def spooled_words(cases, count, batch_size):
    """An iterator of the words of each of the `count` cases that `cases()` yields, in
    order, as strings joined by spaces; or None when this process should find them itself.
    The second process calls `cases()` itself: it must read them afresh (a file by its name,
    say), not share an open file's position with this process."""
    if count < FEWEST_CASES or threading.active_count() > 1:
        yield None
        return
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(
        target=send_words, args=(cases, batch_size, receiver, sender), daemon=True
    )
    process.start()
    sender.close()
    try:
        yield received_words(receiver, process)
    finally:
        receiver.close()
        if process.is_alive():
            process.terminate()
        process.join()
