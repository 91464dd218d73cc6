// A pooled parallel_for's iterations, taken from a queue by whichever
// worker is free: iterations that wait on one another still all start (a
// worker whose iteration blocks takes the next), and each runs once.

import { assert, assertEquals } from "@std/assert";
import { placeProgram } from "../../../runtime/check/placement.ts";
import {
  arrayToTensor,
  arrayWrite,
  closeChannel,
  createArray,
  Executor,
  fillConstant,
  ifElse,
  lessThan,
  makeChannel,
  parallelFor,
  print,
  recv,
} from "../../../mod.ts";
import { buildProgram } from "../../_helpers/run_program.ts";

async function runOn(
  workers: number,
  program: ReturnType<typeof buildProgram>[0],
): Promise<string[]> {
  const lines: string[] = [];
  await new Executor({ workers, print: (l) => lines.push(l) }).run(program);
  return lines;
}

Deno.test("a pooled parallel_for starts every iteration when the first ones wait on the last", async () => {
  // Iterations 0..6 receive from a channel that iteration 7 closes: taking
  // one iteration at a time and waiting for it to end would never get
  // there.
  const [program] = buildProgram(() => {
    const gate = makeChannel({ dtype: "int64" });
    const out = createArray({ dtype: "int64" });
    const last = fillConstant({ shape: [1], dtype: "int64", value: 7 });
    parallelFor(8, (index) => {
      ifElse(lessThan(index, last), () => recv(gate), () => closeChannel(gate));
      arrayWrite(index, index, out);
    });
    print(arrayToTensor(out));
  });
  // The body may move: its iterations go through the pool's queue.
  const placement = placeProgram(program.desc);
  assert([...placement.blocks.values()].every((b) => b.movable));
  const expected = ["[0, 1, 2, 3, 4, 5, 6, 7]"];
  assertEquals(await runOn(2, program), expected);
  assertEquals(await runOn(1, program), expected);
});
