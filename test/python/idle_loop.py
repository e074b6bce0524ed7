"""An otherwise idle asyncio event loop, as the baseline of a loop-lag measurement: it wakes
every 10 ms until its stdin closes, then prints how late its latest wake-up was (ms).

    python3 idle_loop.py   (prints "ready" once its loop runs)
"""

import asyncio
import sys
import time


async def main():
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    loop.add_reader(sys.stdin.fileno(), stop.set)
    print("ready", flush=True)
    worst = 0.0
    while not stop.is_set():
        t = time.perf_counter()
        await asyncio.sleep(0.01)
        worst = max(worst, time.perf_counter() - t - 0.01)
    print(worst * 1000, flush=True)


asyncio.run(main())
