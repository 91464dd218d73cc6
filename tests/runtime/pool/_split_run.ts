// Runs of programs whose large operators split over a pool's workers.

import {
  Executor,
  fillConstant,
  go,
  makeChannel,
  Program,
  recv,
  send,
  type Variable,
} from "../../../mod.ts";
import type { Tensor } from "../../../kernels/tensor.ts";
import type { PoolHandle } from "../../../runtime/pool/worker_pool.ts";

/**
 * Builds a program whose block 0 computes `outputs` after a round trip with
 * a goroutine on another worker: a pooled run really has a pool, up and
 * listening before the operators start.
 */
export function pooled(outputs: () => Variable[]): [Program, Variable[]] {
  const program = new Program();
  const outs = program.guard(() => {
    const ready = makeChannel({ dtype: "int32" });
    go(() => send(ready, fillConstant({ shape: [1], dtype: "int32" })));
    recv(ready);
    return outputs();
  });
  return [program, outs];
}

/**
 * Runs `program` on `workers` workers and fetches `outs`, with how many rows
 * of split operators a worker computed for another's call.
 */
export async function fetchSplit(
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
