// Spawns 1,000,000 green threads that all park on one channel, prints the
// heap they use, then closes the channel and lets them all finish. Run:
//   deno run -A --v8-flags=--expose-gc,--max-old-space-size=4096 bench/million_threads.ts
// (`--expose-gc` lets the script collect garbage before measuring.)
//
// It measures three shapes of thread: an async function parked in an await
// (the usual shape), the same on a scheduler without per-thread async
// contexts (`threadContext: false`, the program interpreter's mode), where
// the thread names itself to the receive, and a function that returns the
// channel receive itself, so the thread is the parked operation with no
// async frame of its own. Last, the same through the interpreter: a Rill
// program whose loop runs `go` a million times, each goroutine parked in a
// `channel_recv`, measured while the main thread sleeps; and goroutines
// that each loop receiving until the channel closes, parked inside their
// `while`.

import {
  closeChannel,
  Executor,
  fillConstant,
  forRange,
  go,
  makeChannel,
  Program,
  recv,
  sleep,
  type Variable,
  whileLoop,
} from "../mod.ts";
import { Channel, Scheduler, type SchedulerOptions } from "../scheduler/mod.ts";

const N = 1_000_000;
// How long the program's main thread sleeps after spawning: spawning a
// million goroutines takes several seconds, and the measurement is taken
// two seconds before the sleep ends.
const SLEEP_MS = 12_000;
const gc = (globalThis as { gc?: () => void }).gc;

function heapMiB(): number {
  gc?.();
  return Deno.memoryUsage().heapUsed / 2 ** 20;
}

function macrotask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

async function measure(
  shape: string,
  options: SchedulerOptions,
  spawnAll: (s: Scheduler, gate: Channel<number>) => void,
) {
  const s = new Scheduler(options);
  const before = heapMiB();
  await s.run(async () => {
    const gate = new Channel<number>();
    const t0 = performance.now();
    spawnAll(s, gate);
    await macrotask(); // every thread starts and parks
    const spawnMs = performance.now() - t0;
    const parked = s.threads().filter((t) =>
      t.waitReason === "chan receive"
    ).length;
    if (parked !== N) {
      throw new Error(
        `expected ${N} parked threads, saw ${parked}`,
      );
    }
    const during = heapMiB();
    console.log(shape);
    console.log(`  parked threads   ${parked}`);
    console.log(
      `  spawn + park     ${spawnMs.toFixed(0)} ms (${
        (spawnMs * 1e6 / N).toFixed(0)
      } ns each)`,
    );
    console.log(
      `  heap used        ${during.toFixed(0)} MiB (${
        before.toFixed(0)
      } MiB before)`,
    );
    console.log(
      `  per thread       ${
        ((during - before) * 2 ** 20 / N).toFixed(0)
      } bytes`,
    );
    const t1 = performance.now();
    gate.close(); // wakes them all
    while (s.threads().length > 1) await macrotask();
    console.log(`  wake + finish    ${(performance.now() - t1).toFixed(0)} ms`);
  });
}

await measure(
  "async function awaiting a receive: go(async () => { await gate.recv(); })",
  { seed: 1 },
  (s, gate) => {
    for (let i = 0; i < N; i++) {
      s.go(async () => {
        await gate.recv();
      });
    }
  },
);
await measure(
  "no async context: go(async (t) => { await gate.recv({ thread: t }); })",
  { seed: 1, threadContext: false },
  (s, gate) => {
    for (let i = 0; i < N; i++) {
      s.go(async (t) => {
        await gate.recv({ thread: t });
      });
    }
  },
);
await measure(
  "function returning the receive: go(() => gate.recv())",
  { seed: 1 },
  (s, gate) => {
    for (let i = 0; i < N; i++) s.go(() => gate.recv());
  },
);

// The interpreter's goroutines. The main thread sleeps long enough for the
// measurement, taken from a timer while it does; then the channel closes and
// every goroutine finishes.
async function measureProgram(
  shape: string,
  goroutine: (gate: Variable) => void,
) {
  const program = new Program();
  program.guard(() => {
    const gate = makeChannel({ dtype: "int32" });
    forRange(N, () => go(() => goroutine(gate)));
    sleep(SLEEP_MS);
    closeChannel(gate);
  });
  const before = heapMiB();
  const t0 = performance.now();
  const measured = new Promise<void>((resolve) =>
    setTimeout(() => {
      const during = heapMiB();
      console.log(shape);
      console.log(
        `  heap used        ${during.toFixed(0)} MiB (${
          before.toFixed(0)
        } MiB before)`,
      );
      console.log(
        `  per thread       ${
          ((during - before) * 2 ** 20 / N).toFixed(0)
        } bytes`,
      );
      resolve();
    }, SLEEP_MS - 2_000)
  );
  await new Executor({ workers: 1, seed: 1 }).run(program);
  await measured;
  console.log(
    `  whole run        ${(performance.now() - t0).toFixed(0)} ms (${
      SLEEP_MS / 1000
    } s of it asleep)`,
  );
}

await measureProgram(
  "a Rill program: forRange(N, () => go(() => recv(gate)))",
  (gate) => void recv(gate),
);
await measureProgram(
  "a Rill program, receiving in a loop: go(() => whileLoop(ok, () => recv(gate, { status: ok })))",
  (gate) => {
    const ok = fillConstant({ shape: [1], dtype: "bool", value: 1 });
    whileLoop(ok, () => void recv(gate, { status: ok }));
  },
);
