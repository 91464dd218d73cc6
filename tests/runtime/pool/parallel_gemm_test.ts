// Large float32 products split over a pool's workers give the same bits as
// on one worker.

import { assert, assertEquals } from "@std/assert";
import { matmul, mul, uniformRandom } from "../../../mod.ts";
import { fetchSplit, pooled } from "./_split_run.ts";

Deno.test("ParallelGemm splits a large matmul over two workers with the one-worker bits", async () => {
  const n = 600; // 600³ is above the split threshold
  const [program, outs] = pooled(() => {
    const x = uniformRandom({ shape: [n, n], seed: 1 });
    const w = uniformRandom({ shape: [n, n], seed: 2 });
    return [matmul(x, w, { alpha: 0.5 }), mul(x, w)];
  });
  const { got: one } = await fetchSplit(program, outs, 1);
  const { got: two, helped } = await fetchSplit(program, outs, 2);
  // The helper claims chunks as soon as the ticket reaches it, long
  // before the requester could finish two products' rows alone.
  assert(helped > 0, "worker 1 computed rows of the products");
  for (let i = 0; i < one.length; i++) {
    assertEquals(two[i].shape, [n, n]);
    assertEquals(two[i].data, one[i].data);
  }
});
