import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertThrows,
} from "@std/assert";
import type { GreenThread } from "../../../scheduler/green_thread.ts";
import { Panic } from "../../../scheduler/panic.ts";
import { PARKED } from "../../../scheduler/resumer.ts";
import type { SharedHeap } from "../../../scheduler/shared/heap.ts";
import type {
  SharedChannel,
  SharedCodec,
} from "../../../scheduler/shared/shared_channel.ts";
import { numberCodec } from "./_number_codec.ts";
import { pairRun, soloRun, untilBlocked } from "./_pool_run.ts";
import {
  channelRecord,
  channelTag,
  createSharedChannel,
  setChannelTag,
} from "../../../scheduler/shared/_channel_handle.ts";

// ---------------------------------------------------------------------------
// One worker, green threads on one scheduler

Deno.test("SharedChannel.send() on an unbuffered channel hands the value to a receiver", async () => {
  await soloRun(async ({ member, scheduler }, main) => {
    const ch = createSharedChannel(member, 0, numberCodec, 0);
    let sent = false;
    const sender = scheduler.go(async (t) => {
      const p = ch.send(42, { thread: t });
      assertInstanceOf(p, Promise); // no receiver yet: it waits
      await p;
      sent = true;
    });
    await untilBlocked(sender);
    assert(!sent);
    assertEquals(ch.len, 0);
    assertEquals(await ch.recv({ thread: main }), 42);
    await sender.done;
    assert(sent);
  });
});

Deno.test("SharedChannel.recv() on an unbuffered channel waits for a sender", async () => {
  await soloRun(async ({ member, scheduler }, main) => {
    const ch = createSharedChannel(member, 0, numberCodec, 0);
    let got: unknown;
    const receiver = scheduler.go(async (t) => {
      got = await ch.recvOk({ thread: t });
    });
    await untilBlocked(receiver);
    assertEquals(ch.send(7, { thread: main }), undefined); // completes at once
    await receiver.done;
    assertEquals(got, { value: 7, ok: true });
  });
});

Deno.test("SharedChannel.send() buffers up to the capacity, in FIFO order", async () => {
  await soloRun(async ({ member, scheduler }, main) => {
    const ch = createSharedChannel(member, 3, numberCodec, 0);
    assertEquals(ch.cap, 3);
    for (const v of [1, 2, 3]) {
      assertEquals(ch.send(v, { thread: main }), undefined);
    }
    assertEquals(ch.len, 3);
    assert(!ch.trySend(4));
    const sender = scheduler.go((t) => ch.send(4, { thread: t }));
    await untilBlocked(sender);
    assertEquals(ch.len, 3);
    const got = [];
    for (let i = 0; i < 4; i++) got.push(await ch.recv({ thread: main }));
    assertEquals(got, [1, 2, 3, 4]);
    await sender.done;
    assertEquals(ch.len, 0);
  });
});

Deno.test("SharedChannel.send() keeps FIFO order while its ring grows and wraps", async () => {
  await soloRun(async ({ member }, main) => {
    const ch = createSharedChannel(member, 5000, numberCodec, 0);
    const got: number[] = [];
    let next = 0;
    // Interleave so that the head moves before the ring grows.
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 1200; i++) ch.send(next++, { thread: main });
      for (let i = 0; i < 700; i++) got.push(await ch.recv({ thread: main }));
    }
    assertEquals(ch.len, next - got.length);
    while (ch.len > 0) got.push(await ch.recv({ thread: main }));
    assertEquals(got, Array.from({ length: next }, (_, i) => i));
  });
});

Deno.test("SharedChannel.len and cap report the buffer", async () => {
  await soloRun(async ({ member }, main) => {
    const unbuffered = createSharedChannel(member, 0, numberCodec, 0);
    assertEquals([unbuffered.len, unbuffered.cap], [0, 0]);
    const ch = createSharedChannel(member, 2, numberCodec, 0, 9);
    assertEquals([ch.len, ch.cap, channelTag(ch)], [0, 2, 9]);
    ch.send(1, { thread: main });
    assertEquals(ch.len, 1);
    ch.send(2, { thread: main });
    assertEquals(ch.len, 2);
    await ch.recv({ thread: main });
    assertEquals([ch.len, ch.cap], [1, 2]);
  });
});

Deno.test("SharedChannel.close() gives parked receivers the zero value, not ok", async () => {
  await soloRun(async ({ member, scheduler }, main) => {
    const ch = createSharedChannel(member, 0, numberCodec, -1);
    const results: unknown[] = [];
    const receivers = [0, 1].map(() =>
      scheduler.go(async (t) => results.push(await ch.recvOk({ thread: t })))
    );
    const plain = scheduler.go(async (t) => {
      results.push(await ch.recv({ thread: t }));
    });
    for (const r of [...receivers, plain]) await untilBlocked(r);
    ch.close();
    assert(ch.closed);
    for (const r of [...receivers, plain]) await r.done;
    assertEquals(results, [
      { value: -1, ok: false },
      { value: -1, ok: false },
      -1,
    ]);
    // Later receives get the zero at once.
    assertEquals(ch.recvOk({ thread: main }), { value: -1, ok: false });
  });
});

Deno.test("SharedChannel.recvOk() drains a closed channel's buffer before the zero value", async () => {
  await soloRun(({ member }, main) => {
    const ch = createSharedChannel(member, 2, numberCodec, 0);
    ch.send(5, { thread: main });
    ch.close();
    assertEquals(ch.recvOk({ thread: main }), { value: 5, ok: true });
    assertEquals(ch.recvOk({ thread: main }), { value: 0, ok: false });
  });
});

Deno.test("SharedChannel.close() makes parked senders panic", async () => {
  await soloRun(async ({ member, scheduler }) => {
    for (const cap of [0, 1]) {
      const ch = createSharedChannel(member, cap, numberCodec, 0);
      if (cap === 1) ch.trySend(0);
      const panics: Panic[] = [];
      const senders = [1, 2].map((v) =>
        scheduler.go(async (t) => {
          try {
            await ch.send(v, { thread: t });
          } catch (e) {
            panics.push(e as Panic);
          }
        })
      );
      for (const s of senders) await untilBlocked(s);
      ch.close();
      for (const s of senders) await s.done;
      assertEquals(panics.length, 2);
      for (const p of panics) {
        assertInstanceOf(p, Panic);
        assertEquals(p.message, "send on closed channel");
      }
    }
  });
});

Deno.test("SharedChannel operations with a resumer return PARKED and hand over the outcome", async () => {
  await soloRun(async ({ member, scheduler }, main) => {
    for (const cap of [0, 1]) {
      const ch = createSharedChannel(member, cap, numberCodec, -1);
      if (cap === 1) ch.trySend(0); // full: the send below waits
      const log: unknown[] = [];
      const sender = scheduler.go((t) =>
        new Promise<void>((resolve) => {
          const resumer = {
            resume: (v: unknown) => resolve(void log.push(["sent", v])),
            fail: (e: unknown) => resolve(void log.push(["failed", e])),
          };
          assertEquals(ch.send(9, { thread: t, resumer }), PARKED);
        })
      );
      await untilBlocked(sender);
      if (cap === 1) assertEquals(ch.recv({ thread: main }), 0);
      else assertEquals(await ch.recv({ thread: main }), 9);
      await sender.done;
      assertEquals(log, [["sent", undefined]]);
      const receiver = scheduler.go((t) =>
        new Promise<void>((resolve) => {
          const resumer = {
            resume: (v: unknown) => resolve(void log.push(["got", v])),
            fail: (e: unknown) => resolve(void log.push(["failed", e])),
          };
          const got = ch.recvOk({ thread: t, resumer });
          if (got === PARKED) return;
          resumer.resume(got); // cap 1: the sender's 9 is buffered
        })
      );
      if (cap === 0) {
        await untilBlocked(receiver);
        ch.close();
      }
      await receiver.done;
      assertEquals(log[1], [
        "got",
        cap === 0 ? { value: -1, ok: false } : { value: 9, ok: true },
      ]);
    }
  });
});

Deno.test("SharedChannel: a send parked with a resumer fails it with the close's panic", async () => {
  await soloRun(async ({ member, scheduler }) => {
    const ch = createSharedChannel(member, 0, numberCodec, 0);
    let failure: unknown;
    const sender = scheduler.go((t) =>
      new Promise<void>((resolve) => {
        ch.send(1, {
          thread: t,
          resumer: {
            resume: () => resolve(),
            fail: (e) => resolve(void (failure = e)),
          },
        });
      })
    );
    await untilBlocked(sender);
    ch.close();
    await sender.done;
    assertInstanceOf(failure, Panic);
    assertEquals((failure as Panic).message, "send on closed channel");
  });
});

Deno.test("SharedChannel.close() panics on a closed channel", async () => {
  await soloRun(({ member }) => {
    const ch = createSharedChannel(member, 0, numberCodec, 0);
    ch.close();
    assertThrows(() => ch.close(), Panic, "close of closed channel");
    // The lock was released: the channel still works.
    assertEquals(ch.recvOk(), { value: 0, ok: false });
  });
});

Deno.test("SharedChannel.send() panics on a closed channel", async () => {
  await soloRun(({ member }, main) => {
    const ch = createSharedChannel(member, 4, numberCodec, 0);
    ch.close();
    assertThrows(
      () => ch.send(1, { thread: main }),
      Panic,
      "send on closed channel",
    );
    assertThrows(() => ch.trySend(1), Panic, "send on closed channel");
    assertEquals(ch.len, 0);
  });
});

// A record of mixed fields, as a blob: id (int32), score (float64), name
// (length-prefixed UTF-8).
interface Player {
  id: number;
  score: number;
  name: string;
}

const playerCodec: SharedCodec<Player> = {
  byteLength: (_heap, p) => 16 + new TextEncoder().encode(p.name).length,
  write(heap: SharedHeap, off: number, p: Player) {
    const view = new DataView(heap.memory.buffer, off);
    const name = new TextEncoder().encode(p.name);
    view.setInt32(0, p.id, true);
    view.setInt32(4, name.length, true);
    view.setFloat64(8, p.score, true);
    new Uint8Array(heap.memory.buffer, off + 16, name.length).set(name);
  },
  read(heap: SharedHeap, off: number): Player {
    const view = new DataView(heap.memory.buffer, off);
    const length = view.getInt32(4, true);
    // TextDecoder refuses shared memory: copy the bytes out first.
    const bytes = new Uint8Array(heap.memory.buffer, off + 16, length).slice();
    return {
      id: view.getInt32(0, true),
      score: view.getFloat64(8, true),
      name: new TextDecoder().decode(bytes),
    };
  },
};

Deno.test("SharedChannel carries typed values through their codec", async () => {
  await soloRun(async ({ member, scheduler }, main) => {
    const zero = { id: 0, score: 0, name: "" };
    const ch = createSharedChannel(member, 1, playerCodec, zero);
    const players: Player[] = [
      { id: 1, score: 2.5, name: "ada" },
      { id: -7, score: -0.125, name: "Grüße, 世界" },
      { id: 2 ** 31 - 1, score: 1e300, name: "x".repeat(300) },
    ];
    scheduler.go(async (t: GreenThread) => {
      for (const p of players) await ch.send(p, { thread: t });
      ch.close();
    });
    const got = [];
    for (;;) {
      const r = await ch.recvOk({ thread: main });
      if (!r.ok) {
        assertEquals(r.value, zero);
        break;
      }
      got.push(r.value);
    }
    assertEquals(got, players);
  });
});

// ---------------------------------------------------------------------------
// Across a Web Worker

Deno.test("SharedChannel streams 10,000 values from a Worker through a cap-16 buffer in order", async () => {
  const count = 10_000;
  let ch!: SharedChannel<number>;
  await pairRun(
    ({ member }) => {
      ch = createSharedChannel(member, 16, numberCodec, 0);
      return { kind: "stream", ch: channelRecord(ch), count };
    },
    async (_, main) => {
      const got: number[] = [];
      for (let i = 0; i < count; i++) got.push(await ch.recv({ thread: main }));
      // In order, so none lost and none duplicated.
      assertEquals(got, Array.from({ length: count }, (_, i) => i));
      assertEquals(ch.len, 0);
    },
  );
});

Deno.test("SharedChannel wakes a receiver that waited in the rendezvous slot past its polling", async () => {
  // The Worker's receives outlast its polling (a few µs): each parks, and
  // the main thread's later send must find and wake it.
  const count = 20;
  await pingPong(count, async (ping, pong, main) => {
    for (let i = 0; i < count; i++) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      await ping.send(i, { thread: main });
      assertEquals(await pong.recv({ thread: main }), i + 1);
    }
  });
});

Deno.test("SharedChannel ping-pongs 1,000 round trips with a Worker unbuffered", async () => {
  const count = 1000;
  await pingPong(count, async (ping, pong, main) => {
    let v = 0;
    for (let i = 0; i < count; i++) {
      await ping.send(v, { thread: main });
      const back = await pong.recv({ thread: main });
      assertEquals(back, v + 1);
      v = back * 3 % 1000;
    }
  });
});

// Runs `main` beside a Worker that, `count` times, receives v on `ping`
// and sends v + 1 on `pong`, both unbuffered.
async function pingPong(
  count: number,
  main: (
    ping: SharedChannel<number>,
    pong: SharedChannel<number>,
    thread: GreenThread,
  ) => Promise<void>,
): Promise<void> {
  let ping!: SharedChannel<number>;
  let pong!: SharedChannel<number>;
  await pairRun(
    ({ member }) => {
      ping = createSharedChannel(member, 0, numberCodec, 0);
      pong = createSharedChannel(member, 0, numberCodec, 0);
      return {
        kind: "pingpong",
        ping: channelRecord(ping),
        pong: channelRecord(pong),
        count,
      };
    },
    (_, thread) => main(ping, pong, thread),
  );
}

// ---------------------------------------------------------------------------
// A recording's hook (PoolMember.attemptHook)

Deno.test("SharedChannel operations call the attempt hook with the channel's tag, without the lock-free paths", async () => {
  await soloRun(async ({ member, scheduler }, main) => {
    const buffered = createSharedChannel(member, 2, numberCodec, 0);
    const unbuffered = createSharedChannel(member, 0, numberCodec, 0);
    setChannelTag(buffered, 0x100);
    setChannelTag(unbuffered, 0x200);
    const tags: number[] = [];
    member.attemptHook = (tag) => void tags.push(tag);
    // Room in the ring: without the hook, neither would take the lock.
    assertEquals(buffered.send(1, { thread: main }), undefined);
    assertEquals(buffered.recv({ thread: main }), 1);
    const receiver = scheduler.go((t) => unbuffered.recvOk({ thread: t }));
    await untilBlocked(receiver);
    assertEquals(unbuffered.send(2, { thread: main }), undefined);
    await receiver.done;
    buffered.close();
    assertEquals(tags, [0x100, 0x100, 0x200, 0x200, 0x100]);
    member.attemptHook = undefined;
  });
});
