import { assert, assertEquals, assertThrows } from "@std/assert";
import { Panic } from "../../../scheduler/panic.ts";
import type { SharedCodec } from "../../../scheduler/shared/shared_codec.ts";
import {
  channelRecord,
  createSharedChannel,
  releaseChannel,
  retainChannel,
} from "../../../scheduler/shared/_channel_handle.ts";
import { C_REFS } from "../../../scheduler/shared/_records.ts";
import { collectGarbageUntil } from "../../_helpers/collect_garbage.ts";
import { numberCodec } from "./_number_codec.ts";
import { soloRun } from "./_pool_run.ts";

Deno.test("createSharedChannel() panics on a bad capacity", async () => {
  await soloRun(({ member }) => {
    for (const cap of [-1, 1.5, 2 ** 31]) {
      assertThrows(
        () => createSharedChannel(member, cap, numberCodec, 0),
        Panic,
        "makechan: size out of range",
      );
    }
  });
});

// ---------------------------------------------------------------------------
// Lifetime

Deno.test("releaseChannel(): a channel no handle holds is torn down at the next lock, with the values left in its ring", async () => {
  await soloRun(async ({ member }) => {
    const discarded: number[] = [];
    const codec: SharedCodec<number> = {
      ...numberCodec,
      discard: (heap, off) => void discarded.push(heap.f64[off >> 3]),
    };
    let off = 0;
    (() => {
      const ch = createSharedChannel(member, 4, codec, -1);
      for (const v of [1, 2, 3]) ch.send(v);
      off = channelRecord(ch);
    })();
    const refs = () => member.heap.i32[(off >> 2) + C_REFS];
    assert(await collectGarbageUntil(() => refs() === 0), "never collected");
    assertEquals(discarded, [], "nothing is freed before a lock");
    createSharedChannel(member, 0, numberCodec, 0); // locks: the teardown runs
    assertEquals(discarded.sort(), [-1, 1, 2, 3]); // the zero value's too
    // The record's block is free again: the next buffered channel takes it.
    assertEquals(
      channelRecord(createSharedChannel(member, 4, numberCodec, 0)),
      off,
    );
  });
});

Deno.test("retainChannel() keeps a record no handle holds until releaseChannel()", async () => {
  await soloRun(async ({ member }) => {
    let off = 0;
    (() => {
      off = channelRecord(createSharedChannel(member, 0, numberCodec, 0));
    })();
    retainChannel(member, off); // as a spawned goroutine's blob does
    const refs = () => member.heap.i32[(off >> 2) + C_REFS];
    assert(await collectGarbageUntil(() => refs() === 1), "never collected");
    assert(
      channelRecord(createSharedChannel(member, 0, numberCodec, 0)) !== off,
    );
    releaseChannel(member, off, numberCodec);
    assertEquals(
      channelRecord(createSharedChannel(member, 0, numberCodec, 0)),
      off,
    );
  });
});

Deno.test("releaseChannel() lets go of nothing once the run has ended", async () => {
  await soloRun(({ member }) => {
    const ch = createSharedChannel(member, 0, numberCodec, 0);
    member.close();
    releaseChannel(member, channelRecord(ch), numberCodec); // as a late finalizer
    assertEquals(member.heap.i32[(channelRecord(ch) >> 2) + C_REFS], 1);
  });
});
