// SharedChannel across a Web Worker: the lock-free ring under contention,
// with selects, closes and waiters joining it mid-stream.

import { assert, assertEquals } from "@std/assert";
import type { GreenThread } from "../../../scheduler/green_thread.ts";
import { Random } from "../../../scheduler/random.ts";
import { C_RECVQ, C_SENDQ } from "../../../scheduler/shared/_records.ts";
import type { SharedChannel } from "../../../scheduler/shared/shared_channel.ts";
import { selectShared } from "../../../scheduler/shared/shared_select.ts";
import { numberCodec } from "./_number_codec.ts";
import { pairRun } from "./_pool_run.ts";
import { vectorAt, vectorCodec } from "./_vector_codec.ts";
import {
  channelMember,
  channelRecord,
  createSharedChannel,
} from "../../../scheduler/shared/_channel_handle.ts";

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

// Whether any waiter is queued on `ch` (read without the lock, once every
// thread is done).
function hasWaiters(ch: SharedChannel<number>): boolean {
  const i32 = channelMember(ch).heap.i32;
  const c = channelRecord(ch) >> 2;
  return i32[c + C_RECVQ] !== 0 || i32[c + C_SENDQ] !== 0;
}

// Receives from `ch` until it is closed and drained.
async function drain(
  ch: SharedChannel<number>,
  thread: GreenThread,
): Promise<number[]> {
  const got: number[] = [];
  for (;;) {
    const r = await ch.recvOk({ thread });
    if (!r.ok) return got;
    got.push(r.value);
  }
}

// Streams `count` numbers from the Worker through a channel of `cap`, the
// main thread pausing for `pause` ms after `pauseAt` values; checks the
// order.
async function stream(
  cap: number,
  count: number,
  pauseAt = -1,
  pause = 0,
): Promise<void> {
  let ch!: SharedChannel<number>;
  await pairRun(
    ({ member }) => {
      ch = createSharedChannel(member, cap, numberCodec, 0);
      return { kind: "stream", ch: channelRecord(ch), count };
    },
    async (_, main) => {
      const got: number[] = [];
      for (let i = 0; i < count; i++) {
        if (i === pauseAt) await new Promise((r) => setTimeout(r, pause));
        got.push(await ch.recv({ thread: main }));
      }
      assertEquals(got, range(0, count));
      assertEquals(ch.len, 0);
      assert(!hasWaiters(ch));
    },
    15_000,
  );
}

Deno.test("SharedChannel streams across a Worker through a 3-slot ring, wrapping its indices thousands of times", async () => {
  await stream(3, 30_000);
});

Deno.test("SharedChannel streams across a Worker while its ring grows, wrapped, up to the capacity", async () => {
  // While the main thread pauses, the Worker fills the ring, its head
  // mid-ring, and grows it (from 64 slots, doubling to 8192), then waits
  // for room.
  await stream(5000, 20_000, 100, 100);
});

Deno.test("SharedChannel carries inline and blob values across a Worker in order", async () => {
  const count = 5000;
  let ch!: SharedChannel<number[]>;
  await pairRun(
    ({ member }) => {
      ch = createSharedChannel(member, 8, vectorCodec, []);
      return { kind: "vectors", ch: channelRecord(ch), count };
    },
    async (_, main) => {
      for (let i = 0; i < count; i++) {
        assertEquals(await ch.recv({ thread: main }), vectorAt(i));
      }
    },
  );
});

Deno.test("SharedChannel gives each value to exactly one of two receivers on two workers, in order for each", async () => {
  // The main thread sends 0..n-1 on `a`; the Worker and a main-side
  // thread both receive from it, the Worker relaying what it gets on `b`.
  // Unbuffered, the Worker receives through the rendezvous slot and the
  // main-side receiver through the queue.
  for (const cap of [8, 0]) await twoReceivers(cap);
});

async function twoReceivers(cap: number): Promise<void> {
  const n = cap === 0 ? 5_000 : 20_000;
  let a!: SharedChannel<number>;
  let b!: SharedChannel<number>;
  await pairRun(
    ({ member }) => {
      a = createSharedChannel(member, cap, numberCodec, 0);
      b = createSharedChannel(member, 8, numberCodec, 0);
      return { kind: "relay", from: channelRecord(a), to: channelRecord(b) };
    },
    async ({ scheduler }, main) => {
      const sender = scheduler.go(async (t) => {
        for (let i = 0; i < n; i++) await a.send(i, { thread: t });
        a.close();
      });
      // The direct receiver starts once the Worker is up and relaying.
      const relayed = [await b.recv({ thread: main })];
      let direct: number[] = [];
      const receiver = scheduler.go(async (t) => direct = await drain(a, t));
      relayed.push(...await drain(b, main));
      await sender.done;
      await receiver.done;
      for (const got of [direct, relayed]) {
        for (let i = 1; i < got.length; i++) assert(got[i - 1] < got[i]);
      }
      assertEquals([...direct, ...relayed].sort((x, y) => x - y), range(0, n));
      assert(direct.length > 0, "both received some");
    },
    15_000,
  );
}

Deno.test("SharedChannel keeps FIFO order for senders on two workers sharing the tail", async () => {
  const n = 20_000;
  let ch!: SharedChannel<number>;
  await pairRun(
    ({ member }) => {
      ch = createSharedChannel(member, 16, numberCodec, 0);
      return { kind: "stream", ch: channelRecord(ch), count: n };
    },
    async ({ scheduler }, main) => {
      const local = scheduler.go(async (t) => {
        for (let i = n; i < 2 * n; i++) await ch.send(i, { thread: t });
      });
      const last = [-1, n - 1];
      const seen = new Uint8Array(2 * n);
      for (let i = 0; i < 2 * n; i++) {
        const v = await ch.recv({ thread: main });
        const k = v < n ? 0 : 1;
        assert(v > last[k], `${v} after ${last[k]}`);
        last[k] = v;
        seen[v]++;
      }
      await local.done;
      assert(seen.every((x) => x === 1));
    },
    15_000,
  );
});

Deno.test("SharedChannel keeps FIFO order when selects join and leave the stream", async () => {
  // Every third value is taken by a select that may park on the channel
  // (its senders then hand values over under the lock), every seventh by
  // a select with a default (polling); the others by plain receives.
  const count = 20_000;
  let ch!: SharedChannel<number>;
  await pairRun(
    ({ member }) => {
      ch = createSharedChannel(member, 8, numberCodec, 0);
      return { kind: "stream", ch: channelRecord(ch), count };
    },
    async ({ member }, main) => {
      const idle = createSharedChannel(member, 0, numberCodec, 0);
      const random = new Random(5);
      const got: number[] = [];
      while (got.length < count) {
        const i = got.length;
        if (i % 3 === 0) {
          const cases = [{ recv: idle }, { recv: ch }];
          const r = await selectShared(member, cases, random, main);
          assertEquals(r.index, 1);
          got.push(r.value as number);
        } else if (i % 7 === 0) {
          const cases = [{ recv: ch }, { default: true }];
          const r = await selectShared(member, cases, random, main);
          if (r.index === 0) got.push(r.value as number);
        } else {
          got.push(await ch.recv({ thread: main }));
        }
      }
      assertEquals(got, range(0, count));
      assert(!hasWaiters(ch) && !hasWaiters(idle));
    },
    15_000,
  );
});

Deno.test("SharedChannel.close() racing with a Worker's sends loses no sent value and delivers none after the zero", async () => {
  for (const cap of [0, 1, 4, 64]) {
    let ch!: SharedChannel<number>;
    let report!: SharedChannel<number>;
    await pairRun(
      ({ member }) => {
        ch = createSharedChannel(member, cap, numberCodec, -1);
        report = createSharedChannel(member, 1, numberCodec, 0);
        return {
          kind: "untilClosed",
          ch: channelRecord(ch),
          report: channelRecord(report),
        };
      },
      async (_, main) => {
        const got: number[] = [];
        for (let i = 0; i < 3000; i++) {
          got.push(await ch.recv({ thread: main }));
        }
        ch.close();
        got.push(...await drain(ch, main));
        assertEquals(ch.recvOk({ thread: main }), { value: -1, ok: false });
        const sent = await report.recv({ thread: main });
        assertEquals(got, range(0, sent));
      },
    );
  }
});
