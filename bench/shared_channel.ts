// Cross-worker channel costs: the main thread and one Web Worker share a
// heap; the worker sends, the main thread receives.
//
//   deno run -A bench/shared_channel.ts
//
// Buffered (cap 1024) streaming: ns per message. Unbuffered ping-pong:
// µs per round trip (compare `go run ../shared/anchors/go/chanbench.go`
// with GOMAXPROCS=2).

import { Scheduler } from "../scheduler/scheduler.ts";
import { SharedHeap } from "../scheduler/shared/heap.ts";
import { PoolMember } from "../scheduler/shared/pool_member.ts";
import { SharedChannel } from "../scheduler/shared/shared_channel.ts";
import { createWakeRings } from "../scheduler/shared/wake_ring.ts";
import { numberCodec } from "../tests/scheduler/shared/_number_codec.ts";

async function measure(mode: "buffered" | "pingpong", count: number) {
  const heap = SharedHeap.create();
  createWakeRings(heap, 2);
  const scheduler = new Scheduler({ seed: 1, threadContext: false });
  const member = new PoolMember(heap, 0, scheduler);
  const data = SharedChannel.create(
    member,
    mode === "buffered" ? 1024 : 0,
    numberCodec,
    0,
  );
  const back = SharedChannel.create(member, 0, numberCodec, 0);
  member.start({ onQuiet: () => {}, onMessage: () => {} });
  const worker = new Worker(
    new URL("./_shared_channel_worker.ts", import.meta.url),
    { type: "module" },
  );
  const finished = new Promise((resolve) => worker.onmessage = resolve);
  let elapsed = 0;
  await scheduler.run(async (thread) => {
    const options = { thread };
    worker.postMessage({
      memory: heap.memory,
      data: data.off,
      back: back.off,
      count,
      mode,
    });
    // The first value marks the worker's start; time the rest.
    let v = data.recv(options);
    if (v instanceof Promise) v = await v;
    if (mode === "pingpong") {
      const p = back.send(0, options);
      if (p) await p;
    }
    const t0 = performance.now();
    for (let i = 1; i < count; i++) {
      let r = data.recv(options);
      if (r instanceof Promise) r = await r;
      if (mode === "pingpong") {
        const p = back.send(r, options);
        if (p) await p;
      }
    }
    elapsed = performance.now() - t0;
  });
  await finished;
  worker.terminate();
  member.close();
  return (elapsed * 1e6) / (count - 1);
}

for (let round = 0; round < 3; round++) {
  const buffered = await measure("buffered", 1_000_000);
  const pingpong = await measure("pingpong", 100_000);
  console.log(
    `buffered cap 1024: ${buffered.toFixed(0)} ns/msg; ` +
      `unbuffered ping-pong: ${(pingpong / 1000).toFixed(2)} µs/round trip`,
  );
}
