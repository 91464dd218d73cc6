// The floor under a cross-worker unbuffered ping-pong on this machine: the
// rendezvous-slot hand-off of scheduler/shared/_rendezvous.ts reduced to
// plain JS, two slot words and two state words on their own cache lines,
// both sides spinning. bench/shared_channel.ts's unbuffered figure is
// meant to be read beside this one, taken in the same sitting: the host
// moves the two vCPUs, and the floor with them (0.19–1.0 µs seen).
//
//   deno run -A bench/handoff_model.ts [round trips]

import { recvBySlot, sendBySlot } from "./_handoff_slot.ts";

const trips = Number(Deno.args[0] ?? 200_000);
const words = new Int32Array(new SharedArrayBuffer(4096));
// Word offsets, 64 bytes apart: the slot of "data" (worker → main), the
// slot of "back" (main → worker), and each side's waiter (state, value).
const DATA = 0, BACK = 16, MAIN = 32, WORKER = 48;

const worker = new Worker(
  new URL("./_handoff_model_worker.ts", import.meta.url),
  { type: "module" },
);
worker.postMessage({ words, trips, rounds: 5, DATA, BACK, WORKER });

const times: number[] = [];
for (let round = 0; round < 5; round++) {
  const t0 = performance.now();
  for (let i = 0; i < trips; i++) {
    sendBySlot(words, BACK, recvBySlot(words, DATA, MAIN));
  }
  times.push((performance.now() - t0) * 1000 / trips);
}
worker.terminate();
times.sort((a, b) => a - b);
console.log(
  `bare hand-off model: best ${times[0].toFixed(2)}, median ${
    times[2].toFixed(2)
  } µs per round trip (${trips} round trips × 5)`,
);
