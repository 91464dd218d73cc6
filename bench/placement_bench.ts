/**
 * Placement's analysis on a program of many goroutines: 10,000 `go` blocks,
 * each sending one of 100 tensors that block 0 rewrites 100 times (so
 * 9,900 of the blocks must stay with their parent). The test in
 * tests/runtime/check/placement_test.ts checks the answer; this times it.
 * `deno bench -A bench/placement_bench.ts`
 *
 * @module
 */
import {
  fillConstant,
  go,
  increment,
  makeChannel,
  Program,
  send,
} from "../mod.ts";
import { placeProgram } from "../runtime/check/placement.ts";

function manyGoroutines(): Program {
  const program = new Program();
  program.guard(() => {
    const ch = makeChannel({ name: "ch", capacity: 1 });
    const xs = Array.from({ length: 100 }, () => fillConstant({ shape: [1] }));
    for (let k = 0; k < 100; k++) {
      for (const x of xs) increment(x);
      for (let g = 0; g < 100; g++) go(() => send(ch, xs[g]));
    }
  });
  return program;
}

const program = manyGoroutines();

Deno.bench("placeProgram, 10,000 goroutines over 10,000 rewrites", () => {
  placeProgram(program.desc);
});
