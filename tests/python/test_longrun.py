"""10,000 small calls: no growth in process memory (RSS from /proc/self/statm)
or in live OpenCL objects; 4 Python threads with their own contexts at once
reproduce a single thread's results."""
import os
import threading

import numpy as np

import clvision as c
from conftest import read


def rss_kib():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE') // 1024


def live():
    return {k: v for k, v in c.live_objects().items()}


def test_no_growth_over_10000_calls(ctx):
    a = (np.arange(24 * 32, dtype=np.uint8) * 7).reshape(24, 32)
    img = c.upload(a, ctx)
    out = c.Image(ctx, 32, 24)
    host_out = np.empty_like(a)
    pts = np.array([[10.0, 10.0], [20.5, 12.0]], np.float32)

    def rounds(n):
        for i in range(n):
            k = i % 4
            if k == 0:
                c.gaussian_blur(img, 1.0, out=out)             # device in, device out
            elif k == 1:
                c.box_filter(a, 3, 3, out=host_out)            # numpy in, into an array
            elif k == 2:
                c.transpose(a)                                 # numpy in, numpy out
            else:
                try:
                    c.gaussian_blur(a, -1.0)                   # an error each time
                except c.InvalidArgumentError:
                    pass
        c.corners_shi_tomasi(a, max_corners=5)
        c.lk_track(a, a, pts, levels=2)
        ctx.finish()

    rounds(2000)                       # warm-up: programs, pools, allocator
    before, live_before = rss_kib(), live()
    rounds(10000)
    after, live_after = rss_kib(), live()
    assert live_after == live_before, (live_before, live_after)
    # 10,000 calls leaking even 8 bytes each would be 80 KiB; allow allocator noise
    assert after - before < 512, 'RSS grew by %d KiB over 10,000 calls' % (after - before)
    assert np.array_equal(out.download(), c.gaussian_blur(a, 1.0))


def work(ctx, a, b):
    flow = c.farneback(a, b, ctx=ctx)
    blur = c.gaussian_blur(a, 2.0, ctx=ctx)
    img = c.upload(a, ctx)
    grid = c.bilateral_grid(img).download()
    return flow, blur, grid


def test_four_threads_own_contexts():
    a, b = read('flow_chelsea0.png', 0), read('flow_chelsea1.png', 0)
    want = work(c.Context(), a, b)
    results, errors = [None] * 4, []

    def run(i):
        try:
            ctx = c.Context()
            results[i] = [work(ctx, a, b) for _ in range(3)]
        except Exception as e:  # reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for r in results:
        for got in r:
            for g, w in zip(got, want):
                assert np.array_equal(g, w)


def test_threads_sharing_one_context(ctx):
    # one context used from several threads: serialised by its lock, not racing
    a = read('camera.png', 0)
    want = c.gaussian_blur(a, 1.5, ctx=ctx)
    bad = []

    def run():
        for _ in range(20):
            if not np.array_equal(c.gaussian_blur(a, 1.5, ctx=ctx), want):
                bad.append(1)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad


def test_gil_released():
    # a Python thread keeps running while another waits in the library
    a = np.zeros((1080, 1920), np.uint8)
    ctx = c.Context()
    c.bilateral(a[:64, :64], 3.0, 25.0, ctx=ctx)  # build first
    ticks = []
    done = threading.Event()

    def spin():
        while not done.is_set():
            ticks.append(1)

    t = threading.Thread(target=spin)
    t.start()
    try:
        for _ in range(2):
            c.bilateral(a, 3.0, 25.0, ctx=ctx)
    finally:
        done.set()
        t.join()
    assert len(ticks) > 1000


def test_numpy_calls_reuse_device_images(ctx):
    a = read('camera.png', 0)
    b = np.ascontiguousarray(a[::-1])
    # both arrays once first: on a CPU device an array whose data start on 64
    # bytes is wrapped (a short-lived image), any other is copied into a kept
    # one, and numpy's allocator aligns b either way from run to run
    c.gaussian_blur(a, 1.0, ctx=ctx)
    c.gaussian_blur(b, 1.0, ctx=ctx)
    n0 = ctx.stats()['live_mem_objects']
    r1 = c.gaussian_blur(a, 1.0, ctx=ctx)
    r2 = c.gaussian_blur(b, 1.0, ctx=ctx)
    assert ctx.stats()['live_mem_objects'] == n0  # the same two device images again
    assert not np.array_equal(r1, r2) and np.array_equal(r2[::-1], c.gaussian_blur(a, 1.0))
    img = c.upload(a, ctx)
    d1, d2 = c.gaussian_blur(img, 1.0), c.gaussian_blur(img, 2.0)  # device results: new images
    assert d1.cl_mem != d2.cl_mem
    c.release_temporaries(ctx)
    assert ctx.stats()['live_mem_objects'] < n0 + 3
