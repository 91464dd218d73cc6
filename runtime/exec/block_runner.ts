/**
 * Runs a prepared block on the current green thread, op by op. An op that
 * completes synchronously costs one call; an op that waits (returns a
 * promise, or `PARKED` from an operation parked on the thread's resumer)
 * suspends the block as a small frame that its outcome continues, with no
 * async function per suspended block.
 *
 * Every error that escapes an op becomes a `Panic` located at that op
 * (`block B op I <type>`), so a shape mismatch found while running names the
 * op and its variables' shapes.
 *
 * @module
 */
import { ElementsOnDevice, readBack } from "../../kernels/device_tensor.ts";
import { Tensor } from "../../kernels/tensor.ts";
import type { GreenThread } from "../../scheduler/green_thread.ts";
import { Panic } from "../../scheduler/panic.ts";
import { PARKED } from "../../scheduler/resumer.ts";
import { TurnWait } from "../core/schedule_gate.ts";
import { ENDS_ITSELF, exitThread } from "../../scheduler/_thread_control.ts";
import { InternalError } from "../core/errors.ts";
import type { PreparedBlock, PreparedOp } from "../core/prepared_block.ts";
import type { Scope } from "../core/scope.ts";
import type { ThreadContext } from "../core/thread_context.ts";
import { kindOfValue } from "../core/value.ts";

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
 * import { fillConstant, increment, Program } from "../../mod.ts";
 * import { Scope } from "../core/scope.ts";
 * import { PreparedProgram } from "./prepare.ts";
 * import { OPS } from "../ops/mod.ts";
 * import { runBlock } from "./block_runner.ts";
 * import { threadContext } from "./thread_context.ts";
 * import { Scheduler } from "../../scheduler/scheduler.ts";
 * import { cpuDevice } from "../../kernels/cpu/device.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const program = new Program();
 * const x = program.guard(() => increment(fillConstant({ shape: [1], dtype: "int64", value: 1 })));
 * const block = new PreparedProgram(program.desc, OPS).block(0);
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
  const i = runOps(block, scope, ctx, 0);
  if (i === block.ops.length) return;
  const end = Promise.withResolvers<void>();
  suspend(ctx, new BlockFrame(block, scope, end), i);
  return end.promise;
}

/**
 * Runs `block` as the whole work of `ctx`'s green thread, then `done` (if
 * given). When every op completes synchronously, returns after `done`, as
 * `runBlock` would. When an op suspends, returns `ENDS_ITSELF`: the block
 * then ends the thread itself (`exitThread`) after `done`, or
 * with the panic that stopped it, so the scheduler need not watch a promise
 * for each parked thread (a `.then` costs about 190 bytes each).
 *
 * @param block The prepared block.
 * @param scope A scope made for this run of the block.
 * @param ctx The context of the thread the block is the work of.
 * @param done Runs once the block has run every op.
 * @returns `ENDS_ITSELF` if the block suspended.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, increment, Program } from "../../mod.ts";
 * import { Scope } from "../core/scope.ts";
 * import { PreparedProgram } from "./prepare.ts";
 * import { OPS } from "../ops/mod.ts";
 * import { runThreadBlock } from "./block_runner.ts";
 * import { threadContext } from "./thread_context.ts";
 * import { Scheduler } from "../../scheduler/scheduler.ts";
 * import { cpuDevice } from "../../kernels/cpu/device.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const program = new Program();
 * program.guard(() => increment(fillConstant({ shape: [1], dtype: "int64", value: 1 })));
 * const block = new PreparedProgram(program.desc, OPS).block(0);
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
  const i = runOps(block, scope, ctx, 0);
  if (i === block.ops.length) {
    done();
    return;
  }
  suspend(ctx, new BlockFrame(block, scope, done), i);
  return ENDS_ITSELF;
}

/**
 * Runs a sub-block for an op of the same thread (a loop's pass, a branch, a
 * select case). When an op in it suspends, returns `PARKED`: the op must
 * return that straight to the block runner, which then calls the op's
 * `resume` once the sub-block has run to its end (or fails the op with the
 * sub-block's panic).
 *
 * @param block The prepared sub-block.
 * @param scope A scope made for this run of it.
 * @param ctx The thread's context.
 * @returns `undefined` when every op completed synchronously, else `PARKED`.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, increment, lessThan, print, Program, sleep, whileLoop } from "../../mod.ts";
 * import { Executor } from "../run/executor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * // `while` runs each pass with runSubBlock; a pass that sleeps suspends.
 * const program = new Program();
 * program.guard(() => {
 *   const i = fillConstant({ shape: [1], dtype: "int64", value: 0 });
 *   const n = fillConstant({ shape: [1], dtype: "int64", value: 2 });
 *   const cond = lessThan(i, n);
 *   whileLoop(cond, () => {
 *     sleep(1);
 *     print(i, { message: "pass" });
 *     increment(i);
 *     lessThan(i, n, { out: cond });
 *   });
 * });
 * const lines: string[] = [];
 * await new Executor({ seed: 1, print: (l) => lines.push(l) }).run(program);
 * assertEquals(lines, ["pass 0", "pass 1"]);
 * ```
 */
export function runSubBlock(
  block: PreparedBlock,
  scope: Scope,
  ctx: ThreadContext,
): void | typeof PARKED {
  const i = runOps(block, scope, ctx, 0);
  if (i === block.ops.length) return;
  suspend(ctx, new BlockFrame(block, scope, undefined), i);
  return PARKED;
}

function noop(): void {}

// A suspended block is a chain of frames, innermost first: the block whose
// op waits, then the block whose op ran it as a sub-block (runSubBlock),
// and so on out to a root, which runBlock or runThreadBlock made. Frames
// are made only when a block suspends, never for one that runs through.
//
// The innermost op waits either on a promise, whose handlers continue its
// frame, or on a resumer operation (it returned PARKED), which continues
// the frame its context names in `parkedFrame`. A frame that ends hands
// over to its caller: the next frame out resumes its op (which may run
// another sub-block and suspend again), or the root ends the thread or
// settles runBlock's promise.
//
// While a suspension unwinds, each runner up the chain makes its frame and
// links the one below to it: `unwinding` holds the outermost frame so far,
// whose caller is not known yet. It is undefined again whenever an op
// starts, as ops return a sub-block's PARKED at once; so one variable
// serves every thread.

/** How a root frame ends: the thread's `done`, or runBlock's promise. */
type FrameEnd = (() => void) | PromiseWithResolvers<void>;

/**
 * A block suspended at an op, and who continues once it ends: the frame
 * whose op ran it as a sub-block, or how its root run ends. Only the block
 * runner and the thread context hold frames.
 */
export class BlockFrame {
  /** The op the block waits at. */
  at = 0;
  /** Whether that op runs again (a read-back), rather than resumes. */
  rerun = false;

  constructor(
    readonly block: PreparedBlock,
    readonly scope: Scope,
    public caller: BlockFrame | FrameEnd | undefined,
  ) {}
}

/**
 * A thread's context as `threadContext()` makes it: with the innermost
 * block a resumer operation parked, which only the block runner touches.
 */
export interface ParkingContext extends ThreadContext {
  /** The innermost suspended block, while a resumer operation waits. */
  parkedFrame: BlockFrame | undefined;
}

let unwinding: BlockFrame | undefined;

// How a frame ends whose op dropped it: nowhere (the op's error says so).
const LOST: FrameEnd = {
  promise: Promise.resolve(),
  resolve: noop,
  reject: noop,
};

// An op returned something other than its sub-block's PARKED: a bug in the
// op. The sub-block's frame is cut loose, and the op fails.
function lostSubBlock(op: PreparedOp, frame: BlockFrame): InternalError {
  frame.caller = LOST;
  return new InternalError(
    `${op.location} did not return its sub-block's PARKED`,
  );
}

// Records that `frame`'s block suspended at op `at` on `suspension` (with
// `rerun`), and arranges its continuation.
function suspend(ctx: ThreadContext, frame: BlockFrame, at: number): void {
  const pending = suspension!;
  suspension = undefined;
  frame.at = at;
  frame.rerun = rerun;
  const inner = unwinding;
  unwinding = undefined;
  if (pending !== PARKED && inner !== undefined) {
    throw lostSubBlock(frame.block.ops[at], inner);
  }
  if (pending !== PARKED) {
    pending.then(
      (value) => resumeFrame(ctx, frame, value),
      (error) => failFrame(ctx, frame, error),
    );
  } else if (inner === undefined) {
    // The op parked on the thread's resumer. Every context the runner gets
    // was made by threadContext(), so it has the field.
    (ctx as ParkingContext).parkedFrame = frame;
  } else {
    inner.caller = frame;
  }
  if (frame.caller === undefined) unwinding = frame;
}

/**
 * Continues the frame a resumer operation parked, with its outcome.
 *
 * @param ctx The thread's context.
 * @param value What the operation delivered.
 */
export function resumeParked(ctx: ParkingContext, value: unknown): void {
  resumeFrame(ctx, takeParked(ctx), value);
}

/**
 * Fails the frame a resumer operation parked.
 *
 * @param ctx The thread's context.
 * @param error Why the operation failed.
 */
export function failParked(ctx: ParkingContext, error: unknown): void {
  failFrame(ctx, takeParked(ctx), error);
}

function takeParked(ctx: ParkingContext): BlockFrame {
  const frame = ctx.parkedFrame;
  if (frame === undefined) {
    throw new InternalError("a resumer operation resumed no parked block");
  }
  ctx.parkedFrame = undefined;
  return frame;
}

// Finishes the op `frame` waits at with `value`, runs on, and hands over to
// the caller each time a block ends, until a block suspends or the root
// ends.
function resumeFrame(
  ctx: ThreadContext,
  frame: BlockFrame,
  value: unknown,
): void {
  for (;;) {
    try {
      const i = frame.rerun
        ? runOps(frame.block, frame.scope, ctx, frame.at)
        : finishOp(frame, value, ctx);
      if (i < frame.block.ops.length) return suspend(ctx, frame, i);
    } catch (e) {
      return failFrame(ctx, frame, e);
    }
    const caller = frame.caller;
    if (!(caller instanceof BlockFrame)) {
      return endRoot(ctx, caller!, undefined);
    }
    frame = caller;
    value = undefined;
  }
}

// Resumes the op `frame` waits at; if it suspends again, returns its index
// (with `suspension` set), else runs on from the next op.
function finishOp(
  frame: BlockFrame,
  value: unknown,
  ctx: ThreadContext,
): number {
  const op = frame.block.ops[frame.at];
  ctx.thread.where = op.location;
  let again: void | Promise<unknown>;
  try {
    again = op.resume?.(frame.scope, value, ctx);
  } catch (e) {
    throw locatePanic(e, op, frame.scope, ctx.thread);
  }
  if (again === undefined) {
    return runOps(frame.block, frame.scope, ctx, frame.at + 1);
  }
  suspension = again;
  rerun = false;
  return frame.at;
}

// The op `frame` waits at failed with `error`: each frame out fails at its
// op in turn (a panic keeps the innermost location), and the root ends.
function failFrame(
  ctx: ThreadContext,
  frame: BlockFrame,
  error: unknown,
): void {
  for (;;) {
    error = locatePanic(
      error,
      frame.block.ops[frame.at],
      frame.scope,
      ctx.thread,
    );
    const caller = frame.caller;
    if (!(caller instanceof BlockFrame)) return endRoot(ctx, caller!, error);
    frame = caller;
  }
}

// A root frame's block ended, with `error` if it failed.
function endRoot(ctx: ThreadContext, end: FrameEnd, error: unknown): void {
  if (typeof end !== "function") {
    if (error === undefined) end.resolve();
    else end.reject(error);
    return;
  }
  if (error === undefined) {
    try {
      end();
    } catch (e) {
      error = e;
    }
  }
  const thread = ctx.thread;
  const panic = error === undefined ? undefined : Panic.from(error, thread);
  exitThread(thread, panic);
}

// runOps's second and third results, when it stops early: what the op it
// stopped at waits for, and whether that op must run again afterwards (its
// promise reads its inputs back from a device) rather than resume. They are
// module variables, not a returned object, so that the hot loop returns a
// bare index and allocates nothing; that is safe because a worker runs one
// thread at a time and every caller reads both (suspend() does) before
// any other op runs.
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
      if (unwinding !== undefined) {
        const lost = unwinding;
        unwinding = undefined;
        throw lostSubBlock(op, lost);
      }
      if (op.def.poolWorthy !== undefined && i + 1 < ops.length) {
        // A product may run for long: end the time slice if it is over,
        // so that timers and I/O run between products (a worker must
        // answer its master's keepalive PINGs while it computes a piece).
        const slice = ctx.run.scheduler.yieldSlice(true);
        if (slice !== undefined) {
          suspension = slice;
          rerun = true;
          return i + 1;
        }
      }
    }
    return i;
  } catch (e) {
    if (e instanceof TurnWait) {
      // A replay's op waits for its thread's turn, then runs again.
      suspension = e.promise;
      rerun = true;
      return i;
    }
    if (!(e instanceof ElementsOnDevice)) {
      throw locatePanic(e, ops[i], scope, thread);
    }
    suspension = readBackFor(ops[i], scope, e);
    rerun = true;
    return i;
  }
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
 * import { fillConstant, Program, relu } from "../../mod.ts";
 * import { PreparedProgram } from "./prepare.ts";
 * import { OPS } from "../ops/mod.ts";
 * import { Scope } from "../core/scope.ts";
 * import { locatePanic } from "./block_runner.ts";
 * import { Panic } from "../../scheduler/panic.ts";
 * import { Scheduler } from "../../scheduler/scheduler.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => relu(fillConstant({ shape: [2] })));
 * const block = new PreparedProgram(p.desc, OPS).block(0);
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
