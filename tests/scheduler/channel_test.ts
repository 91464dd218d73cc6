import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertRejects,
  assertThrows,
} from "@std/assert";
import {
  Channel,
  closeChannel,
  go,
  makeChannel,
  Panic,
  run,
  Scheduler,
  select,
} from "../../scheduler/mod.ts";
import { within } from "../_helpers/within.ts";
import { settle } from "./_settle.ts";
import { WaitGroup } from "./_wait_group.ts";

// ---------------------------------------------------------------------------
// Construction

Deno.test("new Channel() panics on a negative or fractional capacity", () => {
  for (const cap of [-1, 0.5, NaN, Infinity]) {
    const p = assertThrows(() => new Channel(cap), Panic);
    assertEquals(p.message, "makechan: size out of range");
  }
});

Deno.test("Channel.len and Channel.cap report the buffer", () => {
  const ch = makeChannel<number>(3);
  assertEquals([ch.len, ch.cap], [0, 3]);
  ch.send(1);
  ch.send(2);
  assertEquals(ch.len, 2);
  ch.recv();
  assertEquals(ch.len, 1);
  assertEquals(makeChannel().cap, 0);
});

Deno.test("Channel grows its ring up to a large capacity, keeping FIFO order", () => {
  const ch = new Channel<number>(5000);
  for (let i = 0; i < 3000; i++) assertEquals(ch.send(i), undefined);
  for (let i = 0; i < 1000; i++) assertEquals(ch.recv(), i);
  for (let i = 3000; i < 6000; i++) assertEquals(ch.send(i), undefined);
  assertEquals(ch.trySend(-1), false);
  for (let i = 1000; i < 6000; i++) assertEquals(ch.recv(), i);
});

// ---------------------------------------------------------------------------
// Send and receive

Deno.test("Channel.send() completes at once into buffer space", () => {
  const ch = new Channel<number>(2);
  assertEquals(ch.send(1), undefined);
  assertEquals(ch.send(2), undefined);
  assertEquals([ch.recv(), ch.recv()], [1, 2]);
});

Deno.test("Channel.send() hands the value to a waiting receiver directly", async () => {
  await within(
    2000,
    run(async () => {
      const ch = new Channel<number>(0, { zero: -1 });
      let got = 0;
      const t = go(async () => {
        got = await ch.recv();
      });
      await settle();
      assertEquals(t.waitReason, "chan receive");
      assertEquals(ch.send(7), undefined); // completes at once
      // The waker completed the receive: the value is not left anywhere else.
      assertEquals(ch.tryRecv(), { state: "empty" });
      await t.done;
      assertEquals(got, 7);
    }, { seed: 1 }),
  );
});

Deno.test("Channel.recv() from a full buffer takes a waiting sender's value in FIFO order", async () => {
  await within(
    2000,
    run(async () => {
      const ch = new Channel<number>(2);
      ch.send(1);
      ch.send(2);
      const t = go(() => ch.send(3));
      await settle();
      assertEquals(t.waitReason, "chan send");
      assertEquals(ch.recv(), 1);
      assertEquals(ch.len, 2); // the sender's value moved into the buffer
      assertEquals([ch.recv(), ch.recv()], [2, 3]);
      await t.done;
    }, { seed: 1 }),
  );
});

Deno.test("Channel.send() panics on a closed channel", () => {
  const ch = new Channel<number>(1);
  ch.close();
  const p = assertThrows(() => ch.send(1), Panic);
  assertEquals(p.message, "send on closed channel");
  assertThrows(() => ch.trySend(1), Panic, "send on closed channel");
});

Deno.test("Channel.close() panics on a closed channel", () => {
  const ch = new Channel<number>();
  ch.close();
  assertThrows(() => ch.close(), Panic, "close of closed channel");
});

Deno.test("closeChannel() panics on the nil channel", () => {
  const p = assertThrows(() => closeChannel(null), Panic);
  assertEquals(p.message, "close of nil channel");
  const ch = new Channel<number>();
  closeChannel(ch);
  assert(ch.closed);
});

Deno.test("Channel.close() panics a sender already waiting", async () => {
  const s = new Scheduler({ seed: 1 });
  const panic: Panic = await within(
    2000,
    assertRejects(() =>
      s.run(async () => {
        const ch = new Channel<number>();
        const t = s.go(async () => {
          t.where = "block 1 op 0 channel_send";
          await ch.send(1);
        });
        await settle();
        ch.close();
        await settle();
      }), Panic),
  );
  assertEquals(panic.message, "send on closed channel");
  assertEquals(panic.thread?.id, 2);
  assertEquals(panic.where, "block 1 op 0 channel_send");
});

Deno.test("Channel.close() wakes waiting receivers with the zero value, not ok", async () => {
  await within(
    2000,
    run(async () => {
      const ch = new Channel<string>(0, { zero: "" });
      const got: unknown[] = [];
      const wg = new WaitGroup();
      wg.add(3);
      for (let i = 0; i < 3; i++) {
        go(async () => {
          got.push(await ch.recvOk());
          wg.done();
        });
      }
      await settle();
      ch.close();
      await wg.wait();
      assertEquals(got, [{ value: "", ok: false }, { value: "", ok: false }, {
        value: "",
        ok: false,
      }]);
    }, { seed: 1 }),
  );
});

Deno.test("Channel.recvOk() yields buffered values after close, then zero forever", () => {
  const ch = new Channel<number>(2, { zero: 0 });
  ch.send(4);
  ch.send(5);
  ch.close();
  assertEquals(ch.recvOk(), { value: 4, ok: true });
  assertEquals(ch.recv(), 5);
  for (let i = 0; i < 5; i++) {
    assertEquals(ch.recvOk(), { value: 0, ok: false });
  }
  assertEquals(ch.tryRecv(), { state: "closed", value: 0 });
});

Deno.test("Channel.trySend() and tryRecv() never wait", () => {
  const unbuffered = new Channel<number>();
  assertEquals(unbuffered.trySend(1), false);
  assertEquals(unbuffered.tryRecv(), { state: "empty" });
  const buffered = new Channel<number>(1);
  assertEquals(buffered.trySend(1), true);
  assertEquals(buffered.trySend(2), false);
  assertEquals(buffered.tryRecv(), { state: "ok", value: 1 });
});

Deno.test("Channel[Symbol.asyncIterator] ranges until close", async () => {
  await within(
    2000,
    run(async () => {
      const ch = new Channel<number>();
      go(async () => {
        for (let i = 0; i < 5; i++) await ch.send(i);
        ch.close();
      });
      const got: number[] = [];
      for await (const v of ch) got.push(v);
      assertEquals(got, [0, 1, 2, 3, 4]);
    }, { seed: 1 }),
  );
});

Deno.test("Channel.recv() with an AbortSignal: abort removes the waiter and rejects", async () => {
  await within(
    2000,
    run(async () => {
      const ch = new Channel<number>();
      const ac = new AbortController();
      const p = ch.recv({ signal: ac.signal });
      assertInstanceOf(p, Promise);
      ac.abort(new Error("cancelled"));
      await assertRejects(() => p as Promise<number>, Error, "cancelled");
      // No receiver is left behind: an unbuffered send cannot complete.
      assertEquals(ch.trySend(1), false);
    }, { seed: 1 }),
  );
});

Deno.test("Channel.send() with an AbortSignal: abort removes the waiter and rejects", async () => {
  await within(
    2000,
    run(async () => {
      const ch = new Channel<number>();
      const ac = new AbortController();
      let caught: unknown;
      const t = go(async () => {
        try {
          await ch.send(1, { signal: ac.signal });
        } catch (e) {
          caught = e;
        }
      });
      await settle();
      assertEquals(t.waitReason, "chan send");
      ac.abort("stop");
      await t.done;
      assertEquals(caught, "stop");
      // No sender is left behind.
      assertEquals(ch.tryRecv(), { state: "empty" });
    }, { seed: 1 }),
  );
});

Deno.test("Channel.recv() with an already aborted signal rejects without waiting", async () => {
  const ch = new Channel<number>();
  await assertRejects(() =>
    ch.recv({ signal: AbortSignal.abort("no") }) as Promise<number>
  );
  // It still completes at once when it can.
  ch.close();
  assertEquals(ch.recv({ signal: AbortSignal.abort("no") }), undefined);
});

Deno.test("Channel works between plain async code and green threads", async () => {
  const ch = new Channel<number>();
  const t = go(() => ch.send(42));
  assertEquals(await ch.recv(), 42);
  await t.done;
});

// ---------------------------------------------------------------------------
// Go's test/chan/fifo.go: values come out in the order they went in.

Deno.test("Channel is FIFO when buffered", () => {
  const n = 10;
  const ch = new Channel<number>(n);
  for (let i = 0; i < n; i++) ch.send(i);
  for (let i = 0; i < n; i++) assertEquals(ch.recv(), i);
});

Deno.test("Channel is FIFO when unbuffered, for receivers taking turns in a daisy chain", async () => {
  await within(
    5000,
    run(async () => {
      const n = 10;
      const ch = new Channel<number>();
      const start = new Channel<void>();
      let turn = start;
      for (let i = 0; i < n; i++) {
        const mine = turn;
        const next = new Channel<void>();
        go(async () => {
          await mine.recv(); // wait for our turn...
          if ((await ch.recv()) !== i) {
            throw new Error(`receiver ${i} got a value out of order`);
          }
          await next.send(); // ...then pass it on
        });
        turn = next;
      }
      await start.send();
      for (let i = 0; i < n; i++) await ch.send(i);
      await turn.recv();
    }, { seed: 1 }),
  );
});

// ---------------------------------------------------------------------------
// Go's test/chan/nonblock.go: non-blocking operations never wait, and do
// succeed once the other side is ready.

Deno.test("Channel.trySend() and tryRecv() succeed once a peer is waiting", async () => {
  for (const cap of [0, 10]) {
    await within(
      5000,
      run(async () => {
        const ch = new Channel<number>(cap, { zero: 0 });
        assertEquals(ch.tryRecv(), { state: "empty" });
        assertEquals(select([{ recv: ch }, { default: true }]).index, 1);

        // A receiver arrives later: keep trying to send without blocking.
        let got = -1;
        go(async () => {
          await settle();
          got = await ch.recv();
        });
        let attempts = 0;
        while (!ch.trySend(23)) {
          if (++attempts > 1000) {
            throw new Error("non-blocking send never succeeded");
          }
          await settle();
        }
        while (got === -1) await settle();
        assertEquals(got, 23);

        // A sender arrives later: keep trying to receive without blocking.
        go(async () => {
          await settle();
          await ch.send(42);
        });
        attempts = 0;
        let r = ch.tryRecv();
        while (r.state !== "ok") {
          if (++attempts > 1000) {
            throw new Error("non-blocking receive never succeeded");
          }
          await settle();
          r = ch.tryRecv();
        }
        assertEquals(r.value, 42);
      }, { seed: 1 }),
    );
  }
});

// ---------------------------------------------------------------------------
// Go's runtime/chan_test.go TestChan, for capacities 0..199.

Deno.test("Channel keeps Go's semantics for capacities 0 through 199", async () => {
  for (let cap = 0; cap < 200; cap++) {
    await within(5000, run(() => checkCapacity(cap), { seed: cap }));
  }
});

async function checkCapacity(cap: number): Promise<void> {
  {
    // A receive from an empty channel waits.
    const c = new Channel<number>(cap, { zero: 0 });
    let received = false;
    go(async () => {
      await c.recv();
      received = true;
    });
    await settle();
    assert(!received, `cap ${cap}: receive from an empty channel did not wait`);
    await c.send(0);
    await settle();
    assert(received, `cap ${cap}: send did not wake the receiver`);
  }
  {
    // A non-blocking receive does not wait.
    const c = new Channel<number>(cap);
    assertEquals(c.tryRecv().state, "empty");
  }
  {
    // A send to a full channel waits.
    const c = new Channel<number>(cap, { zero: 0 });
    for (let i = 0; i < cap; i++) assertEquals(c.send(i), undefined);
    let sent = false;
    go(async () => {
      await c.send(cap);
      sent = true;
    });
    await settle();
    assert(!sent, `cap ${cap}: send to a full channel did not wait`);
    assertEquals(c.recv(), 0);
    await settle();
    assert(sent, `cap ${cap}: receive did not wake the sender`);
  }
  {
    // A non-blocking send to a full channel does not wait.
    const c = new Channel<number>(cap);
    for (let i = 0; i < cap; i++) c.send(i);
    assertEquals(c.trySend(0), false);
  }
  {
    // A closed channel yields its values, then zero with ok false.
    const c = new Channel<number>(cap, { zero: 0 });
    for (let i = 0; i < cap; i++) c.send(i);
    c.close();
    for (let i = 0; i < cap; i++) {
      assertEquals(c.recvOk(), { value: i, ok: true });
    }
    for (let i = 0; i < 4; i++) {
      assertEquals(c.recvOk(), { value: 0, ok: false });
    }
  }
  {
    // Close wakes a waiting receiver.
    const c = new Channel<number>(cap, { zero: 0 });
    let got: unknown;
    const t = go(async () => {
      got = await c.recvOk();
    });
    await settle();
    c.close();
    await t.done;
    assertEquals(got, { value: 0, ok: false });
  }
  // 100 values arrive in FIFO order, through recv() and through recvOk().
  for (const withOk of [false, true]) {
    const c = new Channel<number>(cap);
    go(async () => {
      for (let i = 0; i < 100; i++) await c.send(i);
    });
    for (let i = 0; i < 100; i++) {
      const v = withOk ? (await c.recvOk()).value : await c.recv();
      assertEquals(v, i, `cap ${cap}: value ${i} out of order`);
    }
  }
  {
    // 4 senders and 4 receivers: every value arrives exactly once.
    const p = 4;
    const l = 250;
    const c = new Channel<number>(cap);
    const results = new Channel<number[]>();
    for (let k = 0; k < p; k++) {
      go(async () => {
        for (let i = 0; i < l; i++) await c.send(i);
      });
      go(async () => {
        const seen = new Array(l).fill(0);
        for (let i = 0; i < l; i++) seen[await c.recv()]++;
        await results.send(seen);
      });
    }
    const total = new Array(l).fill(0);
    for (let k = 0; k < p; k++) {
      (await results.recv()).forEach((n, v) => total[v] += n);
    }
    assertEquals(
      total,
      new Array(l).fill(p),
      `cap ${cap}: values lost or duplicated`,
    );
  }
  {
    // len and cap.
    const c = new Channel<number>(cap);
    assertEquals([c.len, c.cap], [0, cap]);
    for (let i = 0; i < cap; i++) c.send(i);
    assertEquals([c.len, c.cap], [cap, cap]);
  }
}

// ---------------------------------------------------------------------------
// Go's runtime/chan_test.go TestMultiConsumer: 23 workers range over one
// channel; the count and the sum of what comes out are exact.

Deno.test("Channel delivers every value once to many consumers (exact count and sum)", async () => {
  await within(
    20000,
    run(async () => {
      const nwork = 23;
      const niter = 271828;
      const pn = [2, 3, 7, 11, 13, 17, 19, 23, 27, 31];
      const q = new Channel<number>(nwork * 3);
      const r = new Channel<number>(nwork * 3);
      const wg = new WaitGroup();
      for (let w = 0; w < nwork; w++) {
        wg.add(1);
        go(async () => {
          for await (const v of q) {
            // Disturb the FIFO-ish order of the range.
            if (pn[w % pn.length] === v) await null;
            await r.send(v);
          }
          wg.done();
        });
      }
      let expect = 0;
      go(async () => {
        for (let i = 0; i < niter; i++) {
          const v = pn[i % pn.length];
          expect += v;
          const p = q.send(v);
          if (p) await p;
        }
        q.close();
        await wg.wait();
        r.close();
      });
      let n = 0;
      let sum = 0;
      for await (const v of r) {
        n++;
        sum += v;
      }
      assertEquals([n, sum], [niter, expect]);
    }, { seed: 1 }),
  );
});

// ---------------------------------------------------------------------------
// Go's test/chan/sieve1.go: a concurrent prime sieve, one filter thread per
// prime found.

Deno.test("Channel runs Go's concurrent prime sieve (sieve1)", async () => {
  await within(
    5000,
    run(async () => {
      const generate = (ch: Channel<number>) => async () => {
        for (let i = 2;; i++) await ch.send(i);
      };
      const filter =
        (input: Channel<number>, output: Channel<number>, prime: number) =>
        async () => {
          while (true) {
            const i = await input.recv();
            if (i % prime !== 0) await output.send(i);
          }
        };
      let ch = new Channel<number>();
      go(generate(ch));
      const primes: number[] = [];
      for (let i = 0; i < 25; i++) {
        const prime = await ch.recv();
        primes.push(prime);
        const next = new Channel<number>();
        go(filter(ch, next, prime));
        ch = next;
      }
      assertEquals(primes, [
        2,
        3,
        5,
        7,
        11,
        13,
        17,
        19,
        23,
        29,
        31,
        37,
        41,
        43,
        47,
        53,
        59,
        61,
        67,
        71,
        73,
        79,
        83,
        89,
        97,
      ]);
    }, { seed: 1 }),
  );
});

// ---------------------------------------------------------------------------
// Go's test/chan/sieve2.go: an Eratosthenes sieve over odd numbers. Each
// prime p feeds a stream of its odd multiples from p*p; a merger keeps the
// streams' heads in a min-heap, and a candidate is prime when it is not the
// smallest pending composite.

Deno.test("Channel runs Go's merging prime sieve over odd numbers (sieve2)", async () => {
  await within(
    5000,
    run(async () => {
      const multiples = (p: number): Channel<number> => {
        const ch = new Channel<number>();
        go(async () => {
          for (let m = p * p;; m += 2 * p) await ch.send(m);
        });
        return ch;
      };
      // Streams as [head, channel], in a binary min-heap on head.
      const heap: [number, Channel<number>][] = [];
      const push = (e: [number, Channel<number>]) => {
        heap.push(e);
        for (let i = heap.length - 1; i > 0;) {
          const parent = (i - 1) >> 1;
          if (heap[parent][0] <= heap[i][0]) break;
          [heap[parent], heap[i]] = [heap[i], heap[parent]];
          i = parent;
        }
      };
      const pop = (): [number, Channel<number>] => {
        const top = heap[0];
        const last = heap.pop()!;
        if (heap.length > 0) {
          heap[0] = last;
          for (let i = 0;;) {
            const l = 2 * i + 1;
            const r = l + 1;
            let m = i;
            if (l < heap.length && heap[l][0] < heap[m][0]) m = l;
            if (r < heap.length && heap[r][0] < heap[m][0]) m = r;
            if (m === i) break;
            [heap[m], heap[i]] = [heap[i], heap[m]];
            i = m;
          }
        }
        return top;
      };
      // The composites, merged in increasing order, from their own thread.
      const composites = new Channel<number>();
      const newPrimes = new Channel<number>(100);
      go(async () => {
        push([9, multiples(3)]);
        while (true) {
          const [m, ch] = pop();
          await composites.send(m);
          push([await ch.recv(), ch]);
          let r = newPrimes.tryRecv();
          while (r.state === "ok") {
            push([r.value * r.value, multiples(r.value)]);
            r = newPrimes.tryRecv();
          }
        }
      });
      const primes = [2, 3];
      let nextComposite = await composites.recv();
      for (let n = 5; primes.length < 100; n += 2) {
        while (nextComposite < n) nextComposite = await composites.recv();
        if (n === nextComposite) continue;
        primes.push(n);
        await newPrimes.send(n);
      }
      assertEquals(primes.length, 100);
      assertEquals(primes.slice(0, 10), [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]);
      assertEquals(primes[99], 541);
      assert(
        primes.every((p) =>
          [...Array(p).keys()].slice(2).every((d) => p % d !== 0)
        ),
      );
    }, { seed: 1 }),
  );
});
