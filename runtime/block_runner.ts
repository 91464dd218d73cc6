/**
 * Runs a prepared block on the current green thread, op by op. An op that
 * completes synchronously costs one call; only an op that returns a promise
 * moves the rest of the block onto an async continuation.
 *
 * Every error that escapes an op becomes a `Panic` located at that op
 * (`block B op I <type>`), so a shape mismatch found while running names the
 * op and its variables' shapes.
 *
 * @module
 */
import { ElementsOnDevice, readBack } from "../kernels/device_tensor.ts";
import { Tensor } from "../kernels/tensor.ts";
import type { GreenThread } from "../scheduler/green_thread.ts";
import { Panic } from "../scheduler/panic.ts";
import { ENDS_ITSELF } from "../scheduler/scheduler.ts";
import { InternalError } from "./errors.ts";
import type { PreparedBlock, PreparedOp } from "./prepared_block.ts";
import type { Scope } from "./scope.ts";
import type { ThreadContext } from "./thread_context.ts";
import { kindOfValue } from "./value.ts";

/**
 * Runs every op of `block` in `scope`.
 *
 * @param block The prepared block.
 * @param scope A scope made for this run of the block.
 * @param ctx The green thread's context.
 * @returns `undefined` when every op completed synchronously, else a
 * promise of the rest.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, increment, Program } from "../mod.ts";
 * import { Scope } from "./scope.ts";
 * import { PreparedProgram } from "./prepare.ts";
 * import { runBlock } from "./block_runner.ts";
 * import { threadContext } from "./thread_context.ts";
 * import { Scheduler } from "../scheduler/scheduler.ts";
 * import { cpuDevice } from "../kernels/cpu/device.ts";
 * import { Tensor } from "../kernels/tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const program = new Program();
 * const x = program.guard(() => increment(fillConstant({ shape: [1], dtype: "int64", value: 1 })));
 * const block = new PreparedProgram(program.desc).block(0);
 * const scope = new Scope(block.layout);
 * const scheduler = new Scheduler({ seed: 1, threadContext: false });
 * const run = { scheduler, device: cpuDevice, seed: 1, print: console.log };
 * await scheduler.run((thread) => runBlock(block, scope, threadContext(run, thread)));
 * const value = scope.get(x.name);
 * if (!(value instanceof Tensor)) throw new Error("x holds no tensor");
 * assertEquals(value.item(0), 2n);
 * ```
 */
export function runBlock(
  block: PreparedBlock,
  scope: Scope,
  ctx: ThreadContext,
): void | Promise<void> {
  return runFrom(block, scope, ctx, undefined);
}

/**
 * Runs `block` as the whole work of `ctx`'s green thread, then `done` (if
 * given). When every op completes synchronously, returns after `done`, as
 * `runBlock` would. When an op suspends, returns `ENDS_ITSELF`: the block's
 * own continuation then ends the thread (`scheduler.threadExited`) after
 * `done`, or with the panic that stopped it, so the scheduler need not
 * watch a promise for each parked thread (a `.then` costs about 190 bytes
 * each).
 *
 * @param block The prepared block.
 * @param scope A scope made for this run of the block.
 * @param ctx The context of the thread the block is the work of.
 * @param done Runs once the block has run every op.
 * @returns `ENDS_ITSELF` if the block suspended.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, increment, Program } from "../mod.ts";
 * import { Scope } from "./scope.ts";
 * import { PreparedProgram } from "./prepare.ts";
 * import { runThreadBlock } from "./block_runner.ts";
 * import { threadContext } from "./thread_context.ts";
 * import { Scheduler } from "../scheduler/scheduler.ts";
 * import { cpuDevice } from "../kernels/cpu/device.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const program = new Program();
 * program.guard(() => increment(fillConstant({ shape: [1], dtype: "int64", value: 1 })));
 * const block = new PreparedProgram(program.desc).block(0);
 * const scheduler = new Scheduler({ seed: 1, threadContext: false });
 * const run = { scheduler, device: cpuDevice, seed: 1, print: console.log };
 * let ran = 0;
 * const scope = new Scope(block.layout);
 * await scheduler.run((thread) =>
 *   runThreadBlock(block, scope, threadContext(run, thread), () => ran++)
 * );
 * assertEquals(ran, 1);
 * ```
 */
export function runThreadBlock(
  block: PreparedBlock,
  scope: Scope,
  ctx: ThreadContext,
  done: () => void = noop,
): void | typeof ENDS_ITSELF {
  if (runFrom(block, scope, ctx, done) !== undefined) return ENDS_ITSELF;
  done();
}

function noop(): void {}

// Runs the ops of `block` from the first. With `ending` (a function, maybe
// a no-op), the block is its thread's whole work: once suspended, its
// continuation runs `ending` and ends the thread itself (runThreadBlock).
function runFrom(
  block: PreparedBlock,
  scope: Scope,
  ctx: ThreadContext,
  ending: (() => void) | undefined,
): void | Promise<void> {
  const i = runOps(block, scope, ctx, 0);
  if (i === block.ops.length) return;
  return finishAsync(block, scope, ctx, i, suspension!, rerun, ending);
}

// What the last runOps that stopped early waits for, and whether the op it
// stopped at must run again afterwards (its promise reads its inputs back
// from a device) rather than resume. Read at once by runOps's caller.
let suspension: Promise<unknown> | undefined;
let rerun = false;

// Runs the ops of `block` from index `from` until one suspends (returns its
// index, with `suspension` and `rerun` set) or the block ends (returns the
// number of ops). Throws a panic located at the op that failed.
function runOps(
  block: PreparedBlock,
  scope: Scope,
  ctx: ThreadContext,
  from: number,
): number {
  const ops = block.ops;
  const thread = ctx.thread;
  let i = from;
  try {
    for (; i < ops.length; i++) {
      const op = ops[i];
      thread.where = op.location;
      const pending = op.run(scope, ctx);
      if (pending !== undefined) {
        suspension = pending;
        rerun = false;
        return i;
      }
    }
    return i;
  } catch (e) {
    if (!(e instanceof ElementsOnDevice)) {
      throw locatePanic(e, ops[i], scope, thread);
    }
    suspension = readBackFor(ops[i], scope, e);
    rerun = true;
    return i;
  }
}

// The rest of a block whose op i suspended on `pending`: finish op i (or
// run it again), run on to the next suspension, and so on to the end.
// Its variables are few on purpose: a suspended block keeps them all, for
// every parked goroutine.
async function finishAsync(
  block: PreparedBlock,
  scope: Scope,
  ctx: ThreadContext,
  i: number,
  pending: Promise<unknown>,
  again: boolean,
  ending: (() => void) | undefined,
): Promise<void> {
  try {
    for (;;) {
      const value = await pending;
      if (!again) block.ops[i].resume?.(scope, value, ctx);
      i = runOps(block, scope, ctx, again ? i : i + 1);
      if (i === block.ops.length) break;
      pending = suspension!;
      again = rerun;
    }
  } catch (e) {
    // A panic from runOps is located already; locatePanic keeps it.
    const panic = locatePanic(e, block.ops[i], scope, ctx.thread);
    if (ending === undefined) throw panic;
    return endThread(ctx.thread, panic);
  }
  if (ending === undefined) return;
  try {
    ending();
  } catch (e) {
    return endThread(ctx.thread, e);
  }
  endThread(ctx.thread, undefined);
}

// Ends a thread whose block has finished, or stopped with `error`.
function endThread(thread: GreenThread, error: unknown): void {
  const panic = error === undefined ? undefined : Panic.from(error, thread);
  thread.scheduler.threadExited(thread, panic);
}

// An op read a tensor whose elements are still on a device (a GPU): read
// back that tensor and every tensor the op reads, in one batch, so that
// running the op again finds them on the host. Ops read their inputs
// before they change anything, so running one again is safe; each round
// brings at least the tensor that stopped it, so the rounds end.
function readBackFor(
  op: PreparedOp,
  scope: Scope,
  e: ElementsOnDevice,
): Promise<void> {
  const values: unknown[] = [e.tensor];
  for (const [, refs] of op.inputs) {
    for (const ref of refs) values.push(ref.read(scope));
  }
  return readBack(values);
}

/**
 * Turns what an op threw into a `Panic` of `thread` located at the op. A
 * panic passes through unchanged: it took its location from `thread.where`
 * when it was made, so one raised in a sub-block names the inner op; one
 * made where its thread was not known (no async context) gets `thread`, and
 * its `where`, which still names the innermost op, here. Internal errors
 * stay internal.
 *
 * @param error What the op threw.
 * @param op The op.
 * @param scope The op's scope, to describe its inputs.
 * @param thread The green thread running the op.
 * @returns The error to raise.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, relu } from "../mod.ts";
 * import { PreparedProgram } from "./prepare.ts";
 * import { Scope } from "./scope.ts";
 * import { locatePanic } from "./block_runner.ts";
 * import { Panic } from "../scheduler/panic.ts";
import { ENDS_ITSELF } from "../scheduler/scheduler.ts";
 * import { Scheduler } from "../scheduler/scheduler.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => relu(fillConstant({ shape: [2] })));
 * const block = new PreparedProgram(p.desc).block(0);
 * await new Scheduler({ seed: 1, threadContext: false }).run((thread) => {
 *   const e = locatePanic(new RangeError("boom"), block.ops[1], new Scope(block.layout), thread);
 *   if (!(e instanceof Panic)) throw new Error("not a panic");
 *   assertEquals(e.where, "block 0 op 1 relu");
 * });
 * ```
 */
export function locatePanic(
  error: unknown,
  op: PreparedOp,
  scope: Scope,
  thread: GreenThread,
): unknown {
  if (error instanceof InternalError) return error;
  if (error instanceof Panic) return Panic.from(error, thread);
  const detail = error instanceof Error ? error.message : String(error);
  const type = op.def.type;
  const message = detail.startsWith(`${type}:`) ? detail : `${type}: ${detail}`;
  return new Panic(`${message}${describeInputs(op, scope)}`, {
    thread,
    where: op.location,
    cause: error,
  });
}

function describeInputs(op: PreparedOp, scope: Scope): string {
  const parts: string[] = [];
  for (const [slot, refs] of op.inputs) {
    for (const ref of refs) {
      const v = ref.read(scope);
      const what = v instanceof Tensor
        ? `${v.dtype}[${v.shape.join(", ")}]`
        : kindOfValue(v);
      parts.push(`${slot} "${ref.name}" ${what}`);
    }
  }
  return parts.length === 0 ? "" : ` (${parts.join(", ")})`;
}
