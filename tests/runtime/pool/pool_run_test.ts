// Programs on a pool of two workers: placement that really moves threads
// (and never moves pinned ones), shared channels and arrays, one print
// order, Go's doubleselect across workers, and a dying worker.

import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
} from "@std/assert";
import {
  after,
  arrayToTensor,
  arrayWrite,
  closeChannel,
  createArray,
  elementwiseAdd,
  Executor,
  fillConstant,
  forRange,
  go,
  increment,
  makeChannel,
  parallelFor,
  print,
  Program,
  recv,
  select,
  send,
  uniformRandom,
  type Variable,
  whileLoop,
} from "../../../mod.ts";
import { Deadlock, Panic } from "../../../scheduler/mod.ts";
import { int64 } from "../../_helpers/int64.ts";
import { locationOf } from "../../_helpers/location_of.ts";
import { buildProgram } from "../../_helpers/run_program.ts";
import { within } from "../../_helpers/within.ts";
import { placeProgram } from "../../../runtime/check/placement.ts";
import type { PoolHandle } from "../../../runtime/pool/worker_pool.ts";
import { PoolRun } from "../../../runtime/pool/pool_run.ts";
import { appendLine } from "../../../runtime/pool/_print_log.ts";
import { PreparedProgram } from "../../../runtime/exec/prepare.ts";
import { OPS } from "../../../runtime/ops/mod.ts";
import { withMember } from "./_member.ts";

// Keeps the main thread busy (never idle, never parked) until `started`
// has a value.
function busyUntil(started: Variable): void {
  const waiting = fillConstant({ shape: [1], dtype: "bool", value: true });
  whileLoop(waiting, () => {
    select((s) => {
      s.recv(started, () => {
        fillConstant({ shape: [1], dtype: "bool", value: false, out: waiting });
      });
      s.default();
    });
  });
}

async function runOn(
  workers: number,
  program: ReturnType<typeof buildProgram>[0],
): Promise<string[]> {
  const lines: string[] = [];
  await new Executor({ workers, print: (l) => lines.push(l) }).run(program);
  return lines;
}

Deno.test("Executor with workers runs a movable go on another worker, a pinned one never", async () => {
  const [program] = buildProgram(() => {
    const never = makeChannel({ dtype: "int64" });
    const started = makeChannel({ capacity: 1, dtype: "int64" });
    const x = int64(0);
    go(() => {
      send(started, int64(1));
      recv(never); // movable: reads nothing it could miss
    });
    go(() => {
      increment(x); // pinned by x: written by the block
      recv(never);
    });
    // Wait (without parking) until the other worker has started it.
    busyUntil(started);
    recv(never);
  });
  const deadlock: Deadlock = await assertRejects(
    () => new Executor({ workers: 2 }).run(program),
    Deadlock,
  );
  const workerOf = (nth: number) =>
    deadlock.threads.find((t) =>
      t.createdAt === locationOf(program, 0, "go", nth)
    )?.worker;
  assertEquals(workerOf(0), 1);
  assertEquals(workerOf(1), 0);
  assertStringIncludes(deadlock.dump, "on worker 1");
});

Deno.test("Executor with workers spreads parallel_for iterations over the workers", async () => {
  const [program] = buildProgram(() => {
    // A round trip with a goroutine on the other worker: it is up, idle
    // and ready to take iterations when they are spawned.
    const ready = makeChannel({ dtype: "int64" });
    const started = makeChannel({ capacity: 1, dtype: "int64" });
    go(() => {
      send(started, int64(1));
      send(ready, int64(0));
    });
    busyUntil(started);
    recv(ready);
    const never = makeChannel({ dtype: "int64" });
    parallelFor(4, () => {
      // Some work first, as a CPU-bound iteration has.
      const sum = int64(0);
      forRange(20_000, (i) => elementwiseAdd(sum, i, { out: sum }));
      recv(never);
    });
  });
  const deadlock: Deadlock = await assertRejects(
    () => new Executor({ workers: 2 }).run(program),
    Deadlock,
  );
  const iterations = deadlock.threads.filter((t) =>
    t.waitReason === "chan receive"
  );
  assertEquals(iterations.length, 4);
  // The other worker, up and idle, takes iterations from the queue too.
  assert(iterations.some((t) => t.worker === 1), "some ran on worker 1");
});

Deno.test("Executor with workers prints in happens-before order", async () => {
  // Each goroutine prints, then sends; main prints after receiving. Every
  // goroutine's line must come before main's line about it.
  const [program] = buildProgram(() => {
    const done = makeChannel({ dtype: "int64" });
    forRange(8, (i) => {
      go(() => {
        print(i, { message: "worker line" });
        send(done, i);
      }, { args: [i] });
    });
    forRange(8, () => {
      print(recv(done), { message: "main got" });
    });
  });
  const lines = await runOn(2, program);
  assertEquals(lines.length, 16);
  for (const line of lines.filter((l) => l.startsWith("main got"))) {
    const i = line.split(" ")[2];
    assert(
      lines.indexOf(`worker line ${i}`) < lines.indexOf(line),
      `"${line}" before its goroutine's line`,
    );
  }
});

Deno.test("Executor with workers gives each thread the random stream it has on one worker", async () => {
  const [program] = buildProgram(() => {
    const out = createArray({ dtype: "float32" });
    parallelFor(6, (index) => {
      arrayWrite(uniformRandom({ shape: [2] }), index, out);
    });
    print(arrayToTensor(out));
  });
  assertEquals(await runOn(2, program), await runOn(1, program));
});

Deno.test("Executor with workers never fires two cases of one select (doubleselect)", async () => {
  // After Go's test/chan/doubleselect.go: senders on both workers offer
  // each value on either of two channels; every value must arrive once.
  const n = 200;
  const [program] = buildProgram(() => {
    const c1 = makeChannel({ dtype: "int64" });
    const c2 = makeChannel({ dtype: "int64" });
    for (let s = 0; s < 2; s++) {
      go(() => {
        forRange(n, (i) => {
          const v = elementwiseAdd(i, int64(1));
          select((sel) => {
            sel.send(c1, v);
            sel.send(c2, v);
          });
        });
      });
    }
    const total = int64(0);
    forRange(2 * n, () => {
      select((sel) => {
        sel.recv(c1, (v) => elementwiseAdd(total, v, { out: total }));
        sel.recv(c2, (v) => elementwiseAdd(total, v, { out: total }));
      });
    });
    print(total, { message: "total" });
    // Nothing more arrives: a value sent twice would be here.
    select((sel) => {
      sel.recv(c1, () => print(int64(1), { message: "extra" }));
      sel.recv(c2, () => print(int64(2), { message: "extra" }));
      sel.default(() => print(int64(0), { message: "none left" }));
    });
  });
  const lines = await within(20_000, runOn(2, program));
  assertEquals(lines, [`total ${n * (n + 1)}`, "none left 0"]);
});

Deno.test("Executor with workers: channel_after times out selects on another worker, its own timer and the main thread's", async () => {
  const [program] = buildProgram(() => {
    const never = makeChannel({ dtype: "int64" });
    const results = makeChannel({ capacity: 2, dtype: "bool" });
    const mainTimer = after(5); // pending work of worker 0
    // Movable, so on worker 1: the round robin starts at the next worker.
    go(() => {
      select((s) => {
        s.recv(never, () => {});
        s.recv(after(5), (v) => send(results, v)); // pending on worker 1
      });
      select((s) => {
        s.recv(never, () => {});
        s.recv(mainTimer, (v) => send(results, v));
      });
    });
    print(recv(results), { message: "its own timer" });
    print(recv(results), { message: "main's timer" });
  });
  assertEquals(placeProgram(program.desc).blocks.get(1)?.pinnedBy, undefined);
  assertEquals(await within(10_000, runOn(2, program)), [
    "its own timer true",
    "main's timer true",
  ]);
});

// What these two guarantee is that a dead worker ends the run at once, not
// when main's loop would have ended: the loop's last print never comes. (Not
// how fast: timings belong in bench/, and a loaded machine stretches them.)
Deno.test("Executor with workers fails the run, without waiting for main, when a worker dies", async () => {
  const [program] = buildProgram(() => {
    const never = makeChannel({ dtype: "int64" });
    const sum = fillConstant({ shape: [1], dtype: "int64", value: 0 });
    go(() => {
      recv(never);
    });
    // Main keeps busy, so that no deadlock ends the run first.
    forRange(1e9, (i) => elementwiseAdd(sum, i, { out: sum }));
    print(sum, { message: "main's loop ended" });
  });
  const lines: string[] = [];
  const panic: Panic = await assertRejects(
    () =>
      new Executor({
        workers: 2,
        onPool: (pool) => setTimeout(() => pool.kill(1), 100),
        print: (line) => lines.push(line),
      }).run(program),
    Panic,
  );
  assertEquals(panic.message, "worker 1 died: terminated");
  assertEquals(lines, []);
});

Deno.test("Executor with workers fails the run, without waiting for main, when a worker throws an uncaught error", async () => {
  const [program] = buildProgram(() => {
    const never = makeChannel({ dtype: "int64" });
    const started = makeChannel({ capacity: 1, dtype: "int64" });
    const sum = fillConstant({ shape: [1], dtype: "int64", value: 0 });
    go(() => {
      send(started, int64(1));
      recv(never);
    });
    busyUntil(started);
    print(int64(1), { message: "worker 1 is up" });
    forRange(1e9, (i) => elementwiseAdd(sum, i, { out: sum }));
    print(sum, { message: "main's loop ended" });
  });
  let pool: PoolHandle | undefined;
  const lines: string[] = [];
  const panic: Panic = await assertRejects(
    () =>
      new Executor({
        workers: 2,
        onPool: (p) => pool = p,
        print: (line) => {
          lines.push(line);
          if (lines.length === 1) pool!.crash(1);
        },
      }).run(program),
    Panic,
  );
  assertEquals(
    panic.message,
    "worker 1 died: Uncaught Error: crash asked for by a test",
  );
  assertEquals(lines, ["worker 1 is up 1"]);
});

Deno.test("Executor rejects a workers count that is not an integer from 1 to 256", () => {
  for (const workers of [0, 1.5, 257, -1]) {
    let threw = false;
    try {
      new Executor({ workers });
    } catch (e) {
      threw = e instanceof RangeError;
    }
    assert(threw, `workers: ${workers}`);
  }
});

Deno.test("Executor with workers ends every worker when the signal aborts", async () => {
  const [program] = buildProgram(() => {
    const never = makeChannel({ dtype: "int64" });
    go(() => {
      // Busy forever on the other worker.
      const sum = fillConstant({ shape: [1], dtype: "int64", value: 0 });
      forRange(1e9, (i) => elementwiseAdd(sum, i, { out: sum }));
    });
    recv(never);
  });
  let stopped = false;
  // Without the abort the busy loop would run for minutes: within's bound
  // fails the test long before that.
  await within(
    30_000,
    assertRejects(
      () =>
        new Executor({
          workers: 2,
          onPool: (pool) => {
            const stop = pool.stop.bind(pool);
            pool.stop = () => {
              stopped = true;
              stop();
            };
          },
        }).run(program, { signal: AbortSignal.timeout(200) }),
      DOMException,
      "timeout",
    ),
  );
  assert(stopped, "the pool was stopped");
});

Deno.test("Executor with workers reports a remote goroutine's panic with its worker", async () => {
  const [program] = buildProgram(() => {
    const never = makeChannel({ dtype: "int64" });
    const twice = makeChannel({ dtype: "int64" });
    // The first movable go goes to worker 1 (the round robin starts at the
    // spawner's next worker); the second stays on worker 0.
    go(() => {
      closeChannel(twice);
      closeChannel(twice);
    });
    go(() => {
      recv(never);
    });
    recv(never);
  });
  const panic: Panic = await assertRejects(
    () => new Executor({ workers: 2 }).run(program),
    Panic,
  );
  assertEquals(panic.message, "close of closed channel");
  assertEquals(panic.where, "block 1 op 1 channel_close");
  assertEquals(panic.thread?.worker, 1);
  assertEquals(panic.thread?.createdAt, locationOf(program, 0, "go", 0));
  // The dump lists the thread that panicked with its worker, and the
  // threads still parked on worker 0.
  assertStringIncludes(panic.dump, "on worker 1");
  assertStringIncludes(panic.dump, "[chan receive]");
});

Deno.test("PoolRun.printLog() prints a batch of more lines than a worker defers frees for", async () => {
  // Freeing the 256th entry (the bound of deferred frees) frees them all at
  // once; each entry's link must be read before.
  await withMember((member) => {
    const lines: string[] = [];
    const pool = new PoolRun(
      member,
      1,
      new PreparedProgram(new Program().desc, OPS),
      (l) => lines.push(l),
    );
    try {
      const encoder = new TextEncoder();
      const sent = Array.from({ length: 600 }, (_, i) => `line ${i}`);
      member.lock();
      for (const line of sent) appendLine(member.heap, encoder.encode(line));
      member.unlock();
      pool.printLog();
      assertEquals(lines, sent);
    } finally {
      pool.close();
    }
  });
});
