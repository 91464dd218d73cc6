// The other side of bench/shared_channel.ts: a Web Worker with its own
// scheduler, joined to the main thread's heap, that sends on the shared
// channels the main thread names.

/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
import { Scheduler } from "../scheduler/scheduler.ts";
import { SharedHeap } from "../scheduler/shared/heap.ts";
import { PoolMember } from "../scheduler/shared/pool_member.ts";
import { numberCodec } from "../tests/scheduler/shared/_number_codec.ts";
import { openSharedChannel } from "../scheduler/shared/_channel_handle.ts";

self.onmessage = async (event: MessageEvent) => {
  const { memory, data, back, count, mode } = event.data;
  const heap = new SharedHeap(memory);
  const scheduler = new Scheduler({ seed: 1, threadContext: false });
  const member = new PoolMember(heap, 1, scheduler);
  const run = scheduler.run(async (thread) => {
    const ch = openSharedChannel(member, data, numberCodec);
    const reply = openSharedChannel(member, back, numberCodec);
    const options = { thread };
    for (let i = 0; i < count; i++) {
      const p = ch.send(i, options);
      if (p) await p;
      if (mode === "pingpong") {
        const r = reply.recv(options);
        if (r instanceof Promise) await r;
      }
    }
  });
  member.start({ onQuiet: () => {}, onMessage: () => {} });
  await run;
  member.close();
  self.postMessage("done");
};
