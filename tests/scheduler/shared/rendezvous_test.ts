// The rendezvous slot of unbuffered shared channels, step by step on one
// worker: what freezing, thawing and a hand-off do to the slot, the queue
// and the waiter (the cross-worker races are in shared_channel_test.ts).

import { assert, assertEquals } from "@std/assert";
import {
  freezeSlot,
  handOff,
  thawSlot,
} from "../../../scheduler/shared/_rendezvous.ts";
import {
  C_CLOSED,
  C_RECVQ,
  C_SLOT,
  DONE,
  newWaiter,
  RECV,
  SLOT_FROZEN,
  W_QUEUE,
  W_STATE,
  W_VALUE,
  WAITING,
} from "../../../scheduler/shared/_records.ts";
import { encodeValue, takeValue } from "../../../scheduler/shared/_values.ts";
import { numberCodec } from "./_number_codec.ts";
import { soloRun } from "./_pool_run.ts";
import {
  channelRecord,
  createSharedChannel,
} from "../../../scheduler/shared/_channel_handle.ts";

Deno.test("rendezvous: a hand-off completes the waiter in the slot and empties it", async () => {
  await soloRun(({ member }) => {
    const ch = createSharedChannel(member, 0, numberCodec, 0);
    const i32 = member.heap.i32;
    const c = channelRecord(ch) >> 2;
    encodeValue(member, numberCodec, 6.5, member.scratch, false);
    assert(!handOff(member.heap, c, member.scratch), "no receiver yet");
    member.lock();
    const w = newWaiter(member, RECV);
    member.unlock();
    assertEquals(Atomics.compareExchange(i32, c + C_SLOT, 0, w), 0);
    assert(handOff(member.heap, c, member.scratch));
    assertEquals(i32[c + C_SLOT], 0);
    assertEquals(i32[(w >> 2) + W_STATE], DONE);
    assertEquals(
      takeValue(member, numberCodec, (w >> 2) + W_VALUE),
      6.5,
    );
  });
});

Deno.test("rendezvous: freezing moves the slot's waiter to the receive queue; thawing reopens only an empty, open channel", async () => {
  await soloRun(({ member }) => {
    const ch = createSharedChannel(member, 0, numberCodec, 0);
    const i32 = member.heap.i32;
    const c = channelRecord(ch) >> 2;
    member.lock();
    const w = newWaiter(member, RECV);
    i32[c + C_SLOT] = w;
    freezeSlot(member.heap, c);
    assertEquals(i32[c + C_SLOT], SLOT_FROZEN);
    assertEquals(i32[c + C_RECVQ], w);
    assertEquals(i32[(w >> 2) + W_QUEUE], c + C_RECVQ);
    assertEquals(i32[(w >> 2) + W_STATE], WAITING);
    encodeValue(member, numberCodec, 1, member.scratch, true);
    assert(!handOff(member.heap, c, member.scratch), "frozen: no hand-off");
    thawSlot(member.heap, c);
    assertEquals(i32[c + C_SLOT], SLOT_FROZEN, "a receiver is queued");
    i32[c + C_RECVQ] = 0;
    i32[c + C_RECVQ + 1] = 0;
    thawSlot(member.heap, c);
    assertEquals(i32[c + C_SLOT], 0);
    freezeSlot(member.heap, c);
    i32[c + C_CLOSED] = 1;
    thawSlot(member.heap, c);
    assertEquals(i32[c + C_SLOT], SLOT_FROZEN, "closed for good");
    member.unlock();
  });
});

Deno.test("rendezvous: a hand-off moves the blob word and every inline word, and no other word of the waiter", async () => {
  await soloRun(({ member }) => {
    const ch = createSharedChannel(member, 0, numberCodec, 0);
    const i32 = member.heap.i32;
    const c = channelRecord(ch) >> 2;
    member.lock();
    const w = newWaiter(member, RECV);
    member.unlock();
    const value = (w >> 2) + W_VALUE;
    const words = [777, 0, -1, 2, 3, 4, 5, -6]; // V_SPARE (1) is not moved
    for (let k = 0; k < 8; k++) i32[member.scratch + k] = words[k];
    const before = [...i32.subarray(w >> 2, value + 10)];
    assertEquals(Atomics.compareExchange(i32, c + C_SLOT, 0, w), 0);
    assert(handOff(member.heap, c, member.scratch));
    const after = [...i32.subarray(w >> 2, value + 10)];
    for (let k = 0; k < after.length; k++) {
      const at = (w >> 2) + k;
      if (at === (w >> 2) + W_STATE) assertEquals(after[k], DONE);
      else if (at >= value && at < value + 8 && at !== value + 1) {
        assertEquals(after[k], words[at - value], `value word ${at - value}`);
      } else assertEquals(after[k], before[k], `waiter word ${k}`);
    }
  });
});
