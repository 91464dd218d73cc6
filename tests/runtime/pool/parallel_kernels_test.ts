// Large elementwise ops, casts, softmax and row-wise reductions split over a
// pool's workers give the same bits as on one worker, and fail as they do
// there.

import { assert, assertEquals, assertRejects } from "@std/assert";
import {
  cast,
  elementwiseAdd,
  elementwiseDiv,
  elementwiseMul,
  exp,
  fillConstant,
  greaterThan,
  reduceMax,
  reduceSum,
  scale,
  softmax,
  uniformRandom,
} from "../../../mod.ts";
import { Panic } from "../../../scheduler/panic.ts";
import { fetchSplit, pooled } from "./_split_run.ts";

Deno.test("ParallelKernels: elementwise ops, casts, softmax and reductions give the one-worker bits", async () => {
  const [program, outs] = pooled(() => {
    const x = uniformRandom({ shape: [513, 300], seed: 1 });
    const z = uniformRandom({ shape: [513, 300], seed: 3 });
    const row = uniformRandom({ shape: [300], seed: 2 });
    const column = uniformRandom({ shape: [513, 1], seed: 4 });
    return [
      elementwiseAdd(x, row), // broadcast along dim 0
      elementwiseMul(x, z), // one shape: split by elements
      elementwiseDiv(x, column), // a column broadcast along dim 1
      exp(x),
      scale(x, { scale: 3, bias: -1 }),
      cast(x, "float64"),
      greaterThan(x, z),
      softmax(x),
      reduceSum(x, { dim: [1] }),
      reduceMax(x, { dim: [-1], keepDim: true }),
      reduceSum(x, { dim: [0] }), // dim 0: stays whole
    ];
  });
  const { got: one } = await fetchSplit(program, outs, 1);
  const { got: two, helped } = await fetchSplit(program, outs, 2);
  assert(helped > 0, "worker 1 computed part of the split ops");
  for (let i = 0; i < outs.length; i++) {
    assertEquals(two[i].dtype, one[i].dtype, outs[i].name);
    assertEquals(two[i].shape, one[i].shape, outs[i].name);
    assertEquals([...two[i].data], [...one[i].data], outs[i].name);
  }
  // The large results live in the memory the workers share.
  assert(two[0].data.buffer instanceof SharedArrayBuffer);
});

Deno.test("ParallelKernels: an error in a split op is the one-worker panic", async () => {
  const [program, outs] = pooled(() => {
    const x = fillConstant({ shape: [400, 400], dtype: "int32", value: 7 });
    const y = fillConstant({ shape: [400, 400], dtype: "int32", value: 0 });
    return [elementwiseDiv(x, y)];
  });
  const message = async (workers: number) =>
    (await assertRejects(() => fetchSplit(program, outs, workers), Panic))
      .message;
  assertEquals(await message(2), await message(1));
});
