/**
 * The ops that start green threads. `go` runs a block on a new green
 * thread, in a child scope of the current one. Free variables resolve
 * through the parent scopes by reference (a Go closure); the variables in
 * `Args` are copied into the new thread's scope when the op runs (a Go
 * call's arguments), so later writes by the spawner do not reach it.
 * `parallel_for` runs a block on N green threads, each with its index, and
 * waits for them all.
 *
 * @module
 */
import { Tensor } from "../../kernels/tensor.ts";
import { WaitGroup } from "../../scheduler/wait_group.ts";
import { runThreadBlock } from "../exec/block_runner.ts";
import { attr, defineOp, type OpDef, slot } from "../core/op_def.ts";
import { Scope } from "../core/scope.ts";
import { threadContext } from "../exec/thread_context.ts";
import type { VarRef } from "../core/var_ref.ts";
import { poolOf } from "../core/_pool_services.ts";

const go = defineOp({
  type: "go",
  summary: "runs sub_block on a new green thread; Args are bound by value",
  inputs: {
    X: slot.any({ duplicable: true, optional: true }),
    Args: slot.any({ duplicable: true, optional: true }),
  },
  outputs: {},
  attrs: { sub_block: attr.block() },
  prepare(ctx) {
    const args = ctx.inputList("Args");
    const blockIdx = ctx.attrs.sub_block;
    const body = ctx.block(blockIdx, args.map((a) => a.name));
    const argSlots = args.map((a) => body.layout.slotOf(a.name)!);
    // One options object per op, shared by every thread it spawns.
    const goOptions = { createdAt: ctx.location };
    return (scope, thread) => {
      const pool = poolOf(thread.run);
      if (pool !== undefined && pool.movable(blockIdx)) {
        const worker = pool.nextWorker();
        if (worker !== pool.member.self) {
          for (const a of args) {
            if (a.read(scope) === undefined) a.tensor(scope); // panics
          }
          return pool.spawn(worker, blockIdx, scope, thread.thread);
        }
      }
      const child = new Scope(body.layout, scope);
      for (let i = 0; i < args.length; i++) {
        const v = args[i].read(scope);
        if (v === undefined) args[i].tensor(scope); // panics: read before written
        child.values[argSlots[i]] = v;
      }
      const run = thread.run;
      run.scheduler.goFrom(
        thread.thread,
        (thread) => runThreadBlock(body, child, threadContext(run, thread)),
        goOptions,
      );
    };
  },
});

const parallelFor = defineOp({
  type: "parallel_for",
  summary:
    "runs sub_block on Num (or num) green threads, index_var = 0..n-1; waits for all",
  inputs: {
    X: slot.any({ duplicable: true, optional: true }),
    Num: slot.tensor({ optional: true }),
  },
  outputs: { Out: slot.any({ duplicable: true, optional: true }) },
  attrs: {
    sub_block: attr.block(),
    num: attr.int(),
    index_var: attr.string("index"),
  },
  check(a, ctx) {
    if (a.num === undefined && !ctx.hasInput("Num")) {
      throw new RangeError("needs a Num input or a num attribute");
    }
    const index = ctx.declaredIn(a.sub_block, a.index_var);
    if (index === undefined) {
      throw new RangeError(
        `index_var "${a.index_var}" is not declared in block ${a.sub_block}`,
      );
    }
    if (index.kind !== "tensor") {
      throw new RangeError(
        `index_var "${a.index_var}" is a ${index.kind}, not a tensor`,
      );
    }
  },
  prepare(ctx) {
    const num = ctx.optionalInput("Num");
    const fixed = ctx.attrs.num;
    const blockIdx = ctx.attrs.sub_block;
    const body = ctx.block(blockIdx);
    const indexSlot = body.layout.slotOf(ctx.attrs.index_var)!;
    const goOptions = { createdAt: ctx.location };
    return (scope, thread) => {
      const n = num === undefined ? fixed! : countOf(num, scope);
      if (n < 0 || !Number.isInteger(n)) {
        throw new RangeError(`count ${n} is not a non-negative integer`);
      }
      if (n === 0) return;
      const run = thread.run;
      const pool = poolOf(run);
      // When the block may move, every worker takes iterations as it
      // becomes free (pool_run.ts); else they all run here.
      if (pool !== undefined && pool.movable(blockIdx)) {
        return pool.parallelFor(blockIdx, n, scope, thread.thread);
      }
      const iterations = new WaitGroup();
      iterations.add(n);
      const finished = () => iterations.done();
      for (let i = 0; i < n; i++) {
        const child = new Scope(body.layout, scope);
        child.values[indexSlot] = Tensor.scalar(BigInt(i), "int64");
        run.scheduler.goFrom(
          thread.thread,
          (thread) =>
            runThreadBlock(body, child, threadContext(run, thread), finished),
          goOptions,
        );
      }
      return iterations.wait(thread.parkAs);
    };
  },
});

// The iteration count a Num tensor holds: one element, any numeric dtype.
function countOf(num: VarRef, scope: Scope): number {
  const t = num.tensor(scope);
  if (t.size !== 1) {
    throw new RangeError(
      `Num "${num.name}" must hold one element, has ${t.size}`,
    );
  }
  return Number(t.item(0));
}

/**
 * The ops that start green threads: `go` and `parallel_for`.
 *
 * @example Usage
 * ```ts
 * import { GO_OPS } from "./go.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(GO_OPS.map((def) => def.type), ["go", "parallel_for"]);
 * ```
 */
export const GO_OPS: readonly OpDef[] = [go, parallelFor];
