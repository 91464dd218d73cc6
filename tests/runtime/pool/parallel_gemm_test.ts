// Large float32 products split over a pool's workers give the same bits as
// on one worker.

import { assert, assertEquals } from "@std/assert";
import {
  Executor,
  fillConstant,
  go,
  makeChannel,
  matmul,
  mul,
  Program,
  recv,
  send,
  uniformRandom,
} from "../../../mod.ts";
import type { Tensor } from "../../../kernels/tensor.ts";
import type { PoolHandle } from "../../../runtime/pool/worker_pool.ts";

// The products, and how many of their rows the other worker computed.
async function product(
  workers: number,
  n: number,
): Promise<{ outs: Tensor[]; helped: number }> {
  const program = new Program();
  const outs = program.guard(() => {
    // A round trip with a goroutine on the other worker: it is up and
    // listening before the products start.
    const ready = makeChannel({ dtype: "int32" });
    go(() => send(ready, fillConstant({ shape: [1], dtype: "int32" })));
    recv(ready);
    const x = uniformRandom({ shape: [n, n], seed: 1 });
    const w = uniformRandom({ shape: [n, n], seed: 2 });
    return [matmul(x, w, { alpha: 0.5 }), mul(x, w)];
  });
  let pool: PoolHandle | undefined;
  const { fetched } = await new Executor({
    workers,
    print: () => {},
    onPool: (p) => pool = p,
  }).run(program, { fetch: outs.map((v) => v.name) });
  return {
    outs: outs.map((v) => fetched[v.name] as Tensor),
    helped: pool?.helpedRows() ?? 0,
  };
}

Deno.test("ParallelGemm splits a large matmul over two workers with the one-worker bits", async () => {
  const n = 600; // 600³ is above the split threshold
  const [{ outs: one }, { outs: two, helped }] = [
    await product(1, n),
    await product(2, n),
  ];
  // The helper claims chunks as soon as the ticket reaches it, long
  // before the requester could finish two products' rows alone.
  assert(helped > 0, "worker 1 computed rows of the products");
  for (let i = 0; i < one.length; i++) {
    assertEquals(two[i].shape, [n, n]);
    assertEquals(two[i].data, one[i].data);
  }
});
