// Large elementwise ops, casts, softmax and row-wise reductions split over a
// pool's workers give the same bits as on one worker, and fail as they do
// there.

import { assert, assertEquals, assertRejects } from "@std/assert";
import {
  cast,
  elementwiseAdd,
  elementwiseDiv,
  elementwiseMul,
  Executor,
  exp,
  fillConstant,
  go,
  greaterThan,
  makeChannel,
  Program,
  recv,
  reduceMax,
  reduceSum,
  scale,
  send,
  softmax,
  uniformRandom,
  type Variable,
} from "../../../mod.ts";
import type { PoolHandle } from "../../../runtime/pool/worker_pool.ts";
import type { Tensor } from "../../../kernels/tensor.ts";
import { Panic } from "../../../scheduler/panic.ts";

// Builds a program whose block 0 computes `outputs` after a round trip with
// a goroutine on another worker (so that a pooled run really has a pool).
function pooled(outputs: () => Variable[]): [Program, Variable[]] {
  const program = new Program();
  const outs = program.guard(() => {
    const ready = makeChannel({ dtype: "int32" });
    go(() => send(ready, fillConstant({ shape: [1], dtype: "int32" })));
    recv(ready);
    return outputs();
  });
  return [program, outs];
}

// The fetched results, and how many rows the other worker computed.
async function fetchAll(
  program: Program,
  outs: Variable[],
  workers: number,
): Promise<{ got: Tensor[]; helped: number }> {
  let pool: PoolHandle | undefined;
  const { fetched } = await new Executor({
    workers,
    print: () => {},
    onPool: (p) => pool = p,
  }).run(program, { fetch: outs.map((v) => v.name) });
  return {
    got: outs.map((v) => fetched[v.name] as Tensor),
    helped: pool?.helpedRows() ?? 0,
  };
}

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
  const { got: one } = await fetchAll(program, outs, 1);
  const { got: two, helped } = await fetchAll(program, outs, 2);
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
    (await assertRejects(() => fetchAll(program, outs, workers), Panic))
      .message;
  assertEquals(await message(2), await message(1));
});
