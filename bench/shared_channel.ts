// Cross-worker channel costs: the main thread and one Web Worker share a
// heap; the worker sends, the main thread receives.
//
//   deno run -A bench/shared_channel.ts [trials] [messages]
//
// Buffered (cap 1024) streaming: ns per message. Unbuffered ping-pong:
// µs per round trip (compare `go run .` in ../shared/anchors/workers/go,
// GOMAXPROCS=2). Each trial makes a fresh heap, shared with one Worker
// that serves every trial, after one untimed trial of each kind that warms
// the code up. Trials are short and many, and the figures are their best
// and median: on a shared machine a long trial rarely runs undisturbed.

import { Scheduler } from "../scheduler/scheduler.ts";
import { SharedHeap } from "../scheduler/shared/heap.ts";
import { PoolMember } from "../scheduler/shared/pool_member.ts";
import { createWakeRings } from "../scheduler/shared/wake_ring.ts";
import { numberCodec } from "../tests/scheduler/shared/_number_codec.ts";
import {
  channelRecord,
  createSharedChannel,
} from "../scheduler/shared/_channel_handle.ts";

const worker = new Worker(
  new URL("./_shared_channel_worker.ts", import.meta.url),
  { type: "module" },
);

async function measure(mode: "buffered" | "pingpong", count: number) {
  const heap = SharedHeap.create();
  createWakeRings(heap, 2);
  const scheduler = new Scheduler({ seed: 1, threadContext: false });
  const member = new PoolMember(heap, 0, scheduler);
  const data = createSharedChannel(
    member,
    mode === "buffered" ? 1024 : 0,
    numberCodec,
    0,
  );
  const back = createSharedChannel(member, 0, numberCodec, 0);
  member.start({ onQuiet: () => {}, onMessage: () => {} });
  const finished = new Promise((resolve) => worker.onmessage = resolve);
  let elapsed = 0;
  await scheduler.run(async (thread) => {
    const options = { thread };
    worker.postMessage({
      memory: heap.memory,
      data: channelRecord(data),
      back: channelRecord(back),
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
  member.close();
  return (elapsed * 1e6) / (count - 1);
}

function summary(samples: number[], scale: number, digits: number): string {
  const sorted = samples.toSorted((a, b) => a - b);
  const median = sorted[sorted.length >> 1];
  return `best ${(sorted[0] * scale).toFixed(digits)}, median ${
    (median * scale).toFixed(digits)
  }`;
}

const trials = Number(Deno.args[0] ?? 15);
const messages = Number(Deno.args[1] ?? 200_000);
const buffered: number[] = [];
const pingpong: number[] = [];
for (let trial = -1; trial < trials; trial++) {
  const b = await measure("buffered", messages);
  const p = await measure("pingpong", messages / 10);
  if (trial < 0) continue; // warm-up
  buffered.push(b);
  pingpong.push(p);
}
worker.terminate();
console.log(
  `buffered cap 1024: ${summary(buffered, 1, 0)} ns/msg; ` +
    `unbuffered ping-pong: ${summary(pingpong, 1e-3, 2)} µs/round trip ` +
    `(${trials} trials)`,
);
