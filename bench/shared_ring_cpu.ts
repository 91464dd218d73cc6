// What a buffered shared channel's lock-free path costs in CPU, without a
// second core: one thread sends 500 numbers into a cap-1024 channel and
// receives them, 400 times a trial. Process CPU time (user + system) per
// send+receive pair, so that other processes on the machine weigh less
// than in wall time; best and median of 15 trials (or `trials`: for an
// instruction count, two runs with different trials give the count per
// pair without the process's start-up).
//
//   deno run -A bench/shared_ring_cpu.ts [trials]

import process from "node:process";
import { Scheduler } from "../scheduler/scheduler.ts";
import { SharedHeap } from "../scheduler/shared/heap.ts";
import { PoolMember } from "../scheduler/shared/pool_member.ts";
import { createWakeRings } from "../scheduler/shared/wake_ring.ts";
import { createSharedChannel } from "../scheduler/shared/_channel_handle.ts";
import { numberCodec } from "../tests/scheduler/shared/_number_codec.ts";

const heap = SharedHeap.create();
createWakeRings(heap, 1);
const scheduler = new Scheduler({ seed: 1, threadContext: false });
const member = new PoolMember(heap, 0, scheduler);
const ch = createSharedChannel(member, 1024, numberCodec, 0);
const count = Number(Deno.args[0] ?? 15);
const trials: number[] = [];
let sum = 0;
await scheduler.run((thread) => {
  const options = { thread };
  for (let trial = -1; trial < count; trial++) {
    const t0 = process.cpuUsage();
    for (let k = 0; k < 400; k++) {
      for (let i = 0; i < 500; i++) ch.send(i, options);
      for (let i = 0; i < 500; i++) sum += ch.recv(options) as number;
    }
    const used = process.cpuUsage(t0);
    if (trial >= 0) trials.push((used.user + used.system) * 1e3 / 200_000);
  }
  member.close();
});
// Every value came back: count + 1 trials of 400 rounds of 0 + ... + 499.
if (sum !== (count + 1) * 400 * 124_750) {
  throw new Error(`values lost: sum ${sum}`);
}
trials.sort((a, b) => a - b);
console.log(
  `send+recv pair on one thread: best ${trials[0].toFixed(1)}, median ${
    trials[count >> 1].toFixed(1)
  } ns CPU (${count} trials of 200,000)`,
);
