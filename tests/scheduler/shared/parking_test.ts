import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertThrows,
} from "@std/assert";
import { Panic } from "../../../scheduler/panic.ts";
import { Random } from "../../../scheduler/random.ts";
import { C_RECVQ, C_SENDQ } from "../../../scheduler/shared/_records.ts";
import type { SharedChannel } from "../../../scheduler/shared/shared_channel.ts";
import { selectShared } from "../../../scheduler/shared/shared_select.ts";
import { numberCodec } from "./_number_codec.ts";
import { soloRun } from "./_pool_run.ts";
import {
  channelMember,
  channelRecord,
  createSharedChannel,
} from "../../../scheduler/shared/_channel_handle.ts";

// A thread alone on its worker polls before it parks (_parking.ts); an
// answer that comes long after the polling must still reach it, parked.

function later(ms: number, f: () => void): Promise<void> {
  return new Promise((resolve) =>
    setTimeout(() => {
      f();
      resolve();
    }, ms)
  );
}

function hasWaiters(ch: SharedChannel<number>): boolean {
  const i32 = channelMember(ch).heap.i32;
  const c = channelRecord(ch) >> 2;
  return i32[c + C_RECVQ] !== 0 || i32[c + C_SENDQ] !== 0;
}

Deno.test("SharedChannel.recv() alone on its worker polls, then parks until a late sender", async () => {
  await soloRun(async ({ member }, main) => {
    for (const cap of [0, 2]) {
      const ch = createSharedChannel(member, cap, numberCodec, 0);
      const sent = later(20, () => assert(ch.trySend(42)));
      const got = ch.recv({ thread: main });
      assertInstanceOf(got, Promise); // nobody answered while it polled
      assertEquals(main.state, "blocked");
      assertEquals(await got, 42);
      await sent;
      assert(!hasWaiters(ch));
    }
  });
});

Deno.test("SharedChannel.send() alone on its worker polls, then parks until a late receiver", async () => {
  await soloRun(async ({ member }, main) => {
    for (const cap of [0, 1]) {
      const ch = createSharedChannel(member, cap, numberCodec, 0);
      if (cap === 1) ch.send(1, { thread: main });
      const received: unknown[] = [];
      const taken = later(20, () => received.push(ch.recvOk()));
      const sent = ch.send(2, { thread: main });
      assertInstanceOf(sent, Promise);
      await sent;
      await taken;
      assertEquals(received, [{ value: cap === 1 ? 1 : 2, ok: true }]);
      assert(!hasWaiters(ch));
    }
  });
});

Deno.test("selectShared() alone on its worker polls, then parks until a late close", async () => {
  await soloRun(async ({ member }, main) => {
    const a = createSharedChannel(member, 0, numberCodec, 0);
    const b = createSharedChannel(member, 3, numberCodec, -1);
    const closed = later(20, () => b.close());
    const r = selectShared(
      member,
      [{ recv: a }, { recv: b }],
      new Random(1),
      main,
    );
    assertInstanceOf(r, Promise);
    assertEquals(await r, { index: 1, value: -1, ok: false });
    await closed;
    assert(!hasWaiters(a) && !hasWaiters(b));
    assertThrows(() => b.trySend(1), Panic, "send on closed channel");
  });
});
