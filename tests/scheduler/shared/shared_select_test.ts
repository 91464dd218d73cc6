import { assert, assertEquals, assertThrows } from "@std/assert";
import { Panic } from "../../../scheduler/panic.ts";
import { Random } from "../../../scheduler/random.ts";
import { PARKED } from "../../../scheduler/resumer.ts";
import type { SelectResult } from "../../../scheduler/select.ts";
import { C_RECVQ, C_SENDQ } from "../../../scheduler/shared/_records.ts";
import type { SharedChannel } from "../../../scheduler/shared/shared_channel.ts";
import { selectShared } from "../../../scheduler/shared/shared_select.ts";
import { numberCodec } from "./_number_codec.ts";
import { pairRun, soloRun, untilBlocked } from "./_pool_run.ts";
import {
  channelMember,
  channelRecord,
  createSharedChannel,
  setChannelTag,
} from "../../../scheduler/shared/_channel_handle.ts";

// Whether any waiter is queued on `ch` (read without the lock: the test's
// threads are all parked or done, so nobody writes).
function hasWaiters(ch: SharedChannel<number>): boolean {
  const i32 = channelMember(ch).heap.i32;
  const c = channelRecord(ch) >> 2;
  return i32[c + C_RECVQ] !== 0 || i32[c + C_SENDQ] !== 0;
}

// The result of a select that must complete at once.
function atOnce(r: SelectResult | Promise<SelectResult>): SelectResult {
  if (r instanceof Promise) throw new Error("the select parked");
  return r;
}

// ---------------------------------------------------------------------------
// One worker

Deno.test("selectShared() chooses uniformly among ready cases", async () => {
  await soloRun(({ member }, main) => {
    const a = createSharedChannel(member, 1, numberCodec, 0);
    const b = createSharedChannel(member, 1, numberCodec, 0);
    const random = new Random(42);
    const counts = [0, 0];
    const tries = 400;
    for (let i = 0; i < tries; i++) {
      a.trySend(10);
      b.trySend(20);
      const cases = [{ recv: a }, { recv: b }];
      const r = atOnce(selectShared(member, cases, random, main));
      assertEquals(r.value, r.index === 0 ? 10 : 20);
      counts[r.index]++;
    }
    // Binomial(400, 1/2): 4 standard deviations is 40.
    assert(Math.abs(counts[0] - tries / 2) < 40, `counts ${counts}`);
    assert(counts[0] > 0 && counts[1] > 0);
  });
});

Deno.test("selectShared() takes the default only when no case is ready", async () => {
  await soloRun(({ member }, main) => {
    const random = new Random(1);
    const a = createSharedChannel(member, 1, numberCodec, 0);
    const full = createSharedChannel(member, 1, numberCodec, 0);
    full.trySend(1);
    const cases = [{ recv: a }, { send: full, value: 2 }, { default: true }];
    assertEquals(selectShared(member, cases, random, main), {
      index: 2,
      value: undefined,
      ok: true,
    });
    a.trySend(3);
    assertEquals(selectShared(member, cases, random, main), {
      index: 0,
      value: 3,
      ok: true,
    });
    // Nil channels are never ready.
    const nil = [{ recv: null }, { send: null, value: 1 }, { default: true }];
    assertEquals(atOnce(selectShared(member, nil, random, main)).index, 2);
    assertEquals(full.len, 1); // the losing send left nothing behind
  });
});

Deno.test("selectShared() receives the zero value, not ok, from a closed channel", async () => {
  await soloRun(({ member }, main) => {
    const a = createSharedChannel(member, 0, numberCodec, -5);
    a.close();
    const r = selectShared(member, [{ recv: a }], new Random(1), main);
    assertEquals(r, { index: 0, value: -5, ok: false });
  });
});

Deno.test("selectShared() panics when it chooses a send on a closed channel", async () => {
  await soloRun(({ member }, main) => {
    const a = createSharedChannel(member, 0, numberCodec, 0);
    a.close();
    assertThrows(
      () => selectShared(member, [{ send: a, value: 1 }], new Random(1), main),
      Panic,
      "send on closed channel",
    );
    // The lock was released.
    assertEquals(a.recvOk(), { value: 0, ok: false });
  });
});

Deno.test("selectShared() parked is woken by a send and leaves no waiter on its other channel", async () => {
  await soloRun(async ({ member, scheduler }, main) => {
    const a = createSharedChannel(member, 0, numberCodec, 0);
    const b = createSharedChannel(member, 0, numberCodec, 0);
    let result: SelectResult | undefined;
    const selector = scheduler.go(async (t) => {
      result = await selectShared(
        member,
        [{ recv: a }, { recv: b }],
        t.random,
        t,
      );
    });
    await untilBlocked(selector);
    assert(hasWaiters(a) && hasWaiters(b));
    assertEquals(a.send(5, { thread: main }), undefined); // completes at once
    await selector.done;
    assertEquals(result, { index: 0, value: 5, ok: true });
    assert(!hasWaiters(a) && !hasWaiters(b));
    // Nothing receives on b any more.
    assert(!b.trySend(6));
    const late = scheduler.go((t) => b.send(7, { thread: t }));
    await untilBlocked(late);
    assertEquals(await b.recv({ thread: main }), 7);
    await late.done;
  });
});

Deno.test("selectShared() with a resumer returns PARKED and resumes with the case that fired", async () => {
  await soloRun(async ({ member, scheduler }, main) => {
    const a = createSharedChannel(member, 0, numberCodec, 0);
    const b = createSharedChannel(member, 0, numberCodec, 0);
    let result: unknown;
    const selector = scheduler.go((t) =>
      new Promise<void>((resolve) => {
        const resumer = {
          resume: (v: unknown) => resolve(void (result = v)),
          fail: (e: unknown) => resolve(void (result = e)),
        };
        const cases = [{ recv: a }, { recv: b }];
        assertEquals(selectShared(member, cases, t.random, t, resumer), PARKED);
      })
    );
    await untilBlocked(selector);
    assertEquals(b.send(3, { thread: main }), undefined);
    await selector.done;
    assertEquals(result, { index: 1, value: 3, ok: true });
    assert(!hasWaiters(a) && !hasWaiters(b));
  });
});

Deno.test("selectShared() parked on sends is woken by a receive and withdraws its other send", async () => {
  await soloRun(async ({ member, scheduler }, main) => {
    const a = createSharedChannel(member, 0, numberCodec, 0);
    const b = createSharedChannel(member, 0, numberCodec, 0);
    let result: SelectResult | undefined;
    const selector = scheduler.go(async (t) => {
      result = await selectShared(
        member,
        [{ send: a, value: 1 }, { send: b, value: 2 }],
        t.random,
        t,
      );
    });
    await untilBlocked(selector);
    assertEquals(b.recv({ thread: main }), 2); // completes at once
    await selector.done;
    assertEquals(result, { index: 1, value: undefined, ok: true });
    assert(!hasWaiters(a));
    assertEquals(a.recvOk({ thread: main }) instanceof Promise, true);
  });
});

Deno.test("selectShared() parked is woken by close with the zero value", async () => {
  await soloRun(async ({ member, scheduler }) => {
    const a = createSharedChannel(member, 0, numberCodec, -1);
    const b = createSharedChannel(member, 0, numberCodec, 0);
    let result: SelectResult | undefined;
    const selector = scheduler.go(async (t) => {
      result = await selectShared(
        member,
        [{ recv: b }, { recv: a }],
        t.random,
        t,
      );
    });
    await untilBlocked(selector);
    a.close();
    await selector.done;
    assertEquals(result, { index: 1, value: -1, ok: false });
    assert(!hasWaiters(b));
  });
});

// ---------------------------------------------------------------------------
// Across a Web Worker

// Go's test/chan/doubleselect.go, over two workers: each of the Worker's two
// threads select-sends its values on whichever channel is ready; the main
// thread select-receives them all. With buffered channels (`cap`), the
// senders' selects meet the receiver's on the rings' fast paths too.
async function doubleSelect(
  count: number,
  serviceThreads: number,
  ms: number,
  cap = 0,
) {
  let a!: SharedChannel<number>;
  let b!: SharedChannel<number>;
  await pairRun(
    ({ member }) => {
      a = createSharedChannel(member, cap, numberCodec, 0);
      b = createSharedChannel(member, cap, numberCodec, 0);
      return {
        kind: "doubleselect",
        a: channelRecord(a),
        b: channelRecord(b),
        count,
        serviceThreads,
      };
    },
    async ({ member }, main) => {
      const random = new Random(3);
      const seen = new Uint8Array(2 * count + 1);
      const last = [0, count]; // the last value from each sender
      const perChannel = [0, 0];
      for (let i = 0; i < 2 * count; i++) {
        const r = await selectShared(
          member,
          [{ recv: a }, { recv: b }],
          random,
          main,
        );
        const v = r.value as number;
        assert(r.ok && Number.isInteger(v) && v >= 1 && v <= 2 * count);
        assertEquals(seen[v], 0, `value ${v} arrived twice`);
        seen[v] = 1;
        // Unbuffered: each sender's values arrive in the order it sent them.
        const k = v > count ? 1 : 0;
        if (cap === 0) assert(v > last[k], `value ${v} after ${last[k]}`);
        last[k] = v;
        perChannel[r.index]++;
      }
      assertEquals(seen.slice(1).every((x) => x === 1), true);
      assert(perChannel[0] > 0 && perChannel[1] > 0, `${perChannel}`);
      assert(!hasWaiters(a) && !hasWaiters(b));
    },
    ms,
  );
}

Deno.test("selectShared() delivers every value exactly once between select senders and a select receiver across a Worker", async () => {
  await doubleSelect(1000, 1, 8000);
});

Deno.test("selectShared() delivers every value exactly once through buffered channels across a Worker", async () => {
  await doubleSelect(5000, 1, 8000, 4);
});

// The same run, but the Worker's main thread, which awaits its senders'
// `done`, is not declared a service thread: it is runnable but not running,
// so the Worker is never idle and runs no time slice. Its wake-ups must
// still reach it (they once waited forever on an unmarked ring).
Deno.test({
  name:
    "selectShared() wakes a Worker whose other threads await outside the scheduler",
  async fn() {
    await doubleSelect(10, 0, 3000);
  },
});

Deno.test("selectShared() sends to a receiver waiting in an unbuffered channel's rendezvous slot, each value once", async () => {
  // The Worker relays `a` (unbuffered: it waits in the slot, polling) to
  // `b`; the main thread select-sends on `a` or on a channel nobody reads.
  const n = 2000;
  let a!: SharedChannel<number>;
  let b!: SharedChannel<number>;
  await pairRun(
    ({ member }) => {
      a = createSharedChannel(member, 0, numberCodec, 0);
      b = createSharedChannel(member, 4, numberCodec, 0);
      return { kind: "relay", from: channelRecord(a), to: channelRecord(b) };
    },
    async ({ member, scheduler }, main) => {
      const idle = createSharedChannel(member, 0, numberCodec, 0);
      const random = new Random(5);
      const got: number[] = [];
      const reader = scheduler.go(async (t) => {
        for (;;) {
          const r = await b.recvOk({ thread: t });
          if (!r.ok) return;
          got.push(r.value);
        }
      });
      for (let i = 0; i < n; i++) {
        const r = await selectShared(
          member,
          [{ send: idle, value: -1 }, { send: a, value: i }],
          random,
          main,
        );
        assertEquals(r.index, 1);
      }
      a.close();
      await reader.done;
      assertEquals(got, Array.from({ length: n }, (_, i) => i));
      assert(!hasWaiters(idle));
    },
    15_000,
  );
});

// ---------------------------------------------------------------------------
// A recording's hook (PoolMember.attemptHook)

Deno.test("selectShared() calls the attempt hook once per channel of its cases", async () => {
  await soloRun(({ member }, main) => {
    const a = createSharedChannel(member, 1, numberCodec, 0);
    const b = createSharedChannel(member, 1, numberCodec, 0);
    setChannelTag(a, 0x100);
    setChannelTag(b, 0x200);
    b.trySend(5);
    const tags: number[] = [];
    member.attemptHook = (tag) => void tags.push(tag);
    // a twice (two cases, one channel), b once, a nil case: not at all.
    const cases = [{ recv: a }, { recv: b }, { send: a, value: 1 }, {
      recv: null,
    }];
    const r = atOnce(selectShared(member, cases, new Random(1), main));
    member.attemptHook = undefined;
    assert(r.index === 1 || r.index === 2);
    assertEquals(tags.sort(), [0x100, 0x200]);
  });
});
