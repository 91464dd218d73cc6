// Workers started ahead of a run: a pooled run takes them (and its
// parallel_for does every iteration exactly once, whichever worker is
// ready first), a run that needs no pool ends them, and so does a run that
// never starts (an invalid program).

import { assertEquals, assertRejects } from "@std/assert";
import {
  arrayToTensor,
  arrayWrite,
  createArray,
  Executor,
  fillConstant,
  parallelFor,
  print,
  Program,
  ProgramError,
} from "../../../mod.ts";
import { StartedWorkers } from "../../../runtime/pool/worker_start.ts";

// 16 iterations, each writing its own index into a shared array; prints
// the array.
function indexProgram(): Program {
  const program = new Program();
  program.guard(() => {
    const out = createArray({ dtype: "int64" });
    parallelFor(16, (index) => arrayWrite(index, index, out));
    print(arrayToTensor(out), { message: "indices" });
  });
  return program;
}

const INDICES = `indices [${
  Array.from({ length: 16 }, (_, i) => i).join(", ")
}]`;

Deno.test("Executor.run() takes started workers, and every parallel_for iteration runs once", async () => {
  // Run at once, before the worker has loaded: the main thread takes the
  // first iterations, the worker those left when it is ready.
  const started = new StartedWorkers(1);
  const lines: string[] = [];
  await new Executor({ workers: 2, print: (l) => lines.push(l) }).run(
    indexProgram(),
    { startedWorkers: started },
  );
  assertEquals(started.waiting, 0);
  assertEquals(lines, [INDICES]);
});

Deno.test("Executor.run() ends started workers when the plan needs no pool", async () => {
  const program = new Program();
  program.guard(() => print(fillConstant({ shape: [1], value: 3 })));
  const started = new StartedWorkers(2);
  const lines: string[] = [];
  await new Executor({ workers: 3, print: (l) => lines.push(l) }).run(
    program,
    { startedWorkers: started },
  );
  assertEquals(started.waiting, 0);
  assertEquals(lines, ["3"]);
});

Deno.test("Executor.run() ends started workers when the program is refused", async () => {
  const program = new Program();
  program.guard(() => fillConstant({ shape: [1], value: 1 }));
  program.desc.blocks[0].ops[0].type = "no_such_op";
  const started = new StartedWorkers(1);
  await assertRejects(
    () =>
      new Executor({ workers: 2 }).run(program, { startedWorkers: started }),
    ProgramError,
  );
  assertEquals(started.waiting, 0);
});

Deno.test("StartedWorkers hands each worker over once, oldest first", () => {
  const started = new StartedWorkers(2);
  const a = started.take();
  const b = started.take();
  try {
    assertEquals([a !== undefined, b !== undefined], [true, true]);
    assertEquals(a === b, false);
    assertEquals(started.take(), undefined);
    assertEquals([a?.failed, b?.failed], [undefined, undefined]);
  } finally {
    a?.worker.terminate();
    b?.worker.terminate();
  }
});
