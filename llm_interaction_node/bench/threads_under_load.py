"""Benchmark: the embedded model beside a busy process, with two threads and with the threads
the machine leaves free (:mod:`..core.llm.threads`).

Reads the first ``--items`` utterances of the reading bench (:mod:`.reading_items`, the
development pool) three times with the embedded model: on the idle machine (the threads chosen
as the client chooses them), with ``--hogs`` busy processes beside it and two threads fixed
(the client before issue 45's fix), and with the hogs and the threads chosen. Prints the wall
time per reading (median, mean, max) and the threads used.

    python -m llm_interaction_node.bench.threads_under_load [--items 12] [--hogs 1]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from ..core.llm.threads import CpuShare
from ..core.reading import Reader
from ..eval.phrasings import load_phrasings
from .reading_items import items

HOG = "while True:\n    pass\n"


def _reads(llm, todo) -> list[float]:
    reader = Reader(llm)                    # a new reader: nothing kept from the last round
    walls = []
    for item in todo:
        start = time.perf_counter()
        reader.read(item.utterance, item.vocabulary, reply=item.reply,
                    moved=item.moved if item.reply else None)
        walls.append(time.perf_counter() - start)
        print(f"  {walls[-1]:6.2f} s (threads {llm._threads}) {item.utterance[:60]!r}",
              file=sys.stderr, flush=True)
    return walls


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=12)
    parser.add_argument("--hogs", type=int, default=1)
    parser.add_argument("--phrasings", default="config/phrasings/development.yaml")
    args = parser.parse_args(argv)
    from ..core.llm.local import LocalLlamaClient
    llm = LocalLlamaClient()
    if llm.cpu is None:
        print("the client's threads are fixed: nothing to compare", file=sys.stderr)
        return 2
    most = llm.cpu.most
    todo = items(load_phrasings(args.phrasings))[:args.items]
    Reader(llm).prefill(persist=True)
    rows = []
    hogs: list[subprocess.Popen] = []
    try:
        for name, busy, chosen in (("idle, threads chosen", False, True),
                                   (f"{args.hogs} hog(s), {most} threads fixed", True, False),
                                   (f"{args.hogs} hog(s), threads chosen", True, True)):
            if busy and not hogs:
                hogs = [subprocess.Popen([sys.executable, "-c", HOG])
                        for _ in range(args.hogs)]
            llm.cpu = CpuShare(most)
            llm.cpu.threads()                       # the window starts now
            time.sleep(1.0)
            if not chosen:
                llm.cpu = None
                llm.llama_cpp.llama_set_n_threads(llm.llama.ctx, most, most)
                llm._threads = most
            print(name, file=sys.stderr, flush=True)
            walls = _reads(llm, todo)
            rows.append((name, statistics.median(walls), statistics.mean(walls), max(walls),
                         llm._threads))
    finally:
        for hog in hogs:
            hog.kill()
    print(f"{'condition':32} {'median s':>9} {'mean s':>8} {'max s':>7} {'threads':>8}")
    for name, median, mean, most, threads in rows:
        print(f"{name:32} {median:9.2f} {mean:8.2f} {most:7.2f} {threads:8d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
