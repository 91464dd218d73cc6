// ScheduleChannels: a local channel's index stays in the map; a shared
// channel's rides in its tag, above the dtype byte, for every handle.

import { assertEquals } from "@std/assert";
import { ScheduleChannels } from "../../../runtime/core/schedule_channels.ts";
import { Channel } from "../../../scheduler/channel.ts";
import { Scheduler } from "../../../scheduler/scheduler.ts";
import { SharedHeap } from "../../../scheduler/shared/heap.ts";
import { PoolMember } from "../../../scheduler/shared/pool_member.ts";
import { createWakeRings } from "../../../scheduler/shared/wake_ring.ts";
import {
  channelTag,
  createSharedChannel,
  setChannelTag,
} from "../../../scheduler/shared/_channel_handle.ts";

Deno.test("ScheduleChannels gives a local channel its index", () => {
  const channels = new ScheduleChannels();
  const a = new Channel<unknown>(1);
  const b = new Channel<unknown>(1);
  channels.give(a, 0);
  channels.give(b, 5);
  assertEquals([channels.indexOf(a), channels.indexOf(b)], [0, 5]);
  // Another worker's map does not know it.
  assertEquals(new ScheduleChannels().indexOf(a), -1);
});

Deno.test("ScheduleChannels keeps a shared channel's index in its tag", () => {
  const heap = SharedHeap.create();
  createWakeRings(heap, 1);
  const member = new PoolMember(
    heap,
    0,
    new Scheduler({ threadContext: false }),
  );
  const codec = {
    byteLength: () => 8,
    write: (h: SharedHeap, off: number, v: unknown) =>
      void (h.f64[off >> 3] = v as number),
    read: (h: SharedHeap, off: number): unknown => h.f64[off >> 3],
  };
  const ch = createSharedChannel(member, 1, codec, 0);
  setChannelTag(ch, 7); // the dtype's byte
  const channels = new ScheduleChannels();
  assertEquals(channels.indexOf(ch), -1);
  channels.give(ch, 300);
  assertEquals(channels.indexOf(ch), 300);
  // Read through the tag, so any worker's gate finds it.
  assertEquals(new ScheduleChannels().indexOf(ch), 300);
  assertEquals(channelTag(ch) & 0xff, 7);
  member.close();
});
