/**
 * Runs a program on a recording CPU device: every kernel call is recorded
 * against the type of the op that made it, so a test can check each op's
 * declaration (`OpDef.kernels`) against what the op really calls. The ops
 * are the registry's, each wrapped so that its run names the op running;
 * a call made by a kernel itself does not pass the recorder.
 *
 * @module
 */
import type { ProgramDesc } from "../../gen/rill/v1/framework_pb.ts";
import { cpuDevice } from "../../kernels/cpu/device.ts";
import type { Device, Kernels } from "../../kernels/device.ts";
import type { Tensor } from "../../kernels/tensor.ts";
import type { OpDef } from "../../runtime/core/op_def.ts";
import type {
  OpRun,
  PrepareContext,
  ResumableRun,
} from "../../runtime/core/prepare_context.ts";
import { Scope } from "../../runtime/core/scope.ts";
import type { RunServices } from "../../runtime/core/thread_context.ts";
import { runBlock } from "../../runtime/exec/block_runner.ts";
import { PreparedProgram } from "../../runtime/exec/prepare.ts";
import { threadContext } from "../../runtime/exec/thread_context.ts";
import { OPS } from "../../runtime/ops/mod.ts";
import { bindRunInputs } from "../../runtime/run/feed_binding.ts";
import { validateProgram } from "../../runtime/check/validate.ts";
import { Scheduler } from "../../scheduler/scheduler.ts";

/** Kernel calls by op type: `kernel`, or `kernel kind` for a kinded one. */
export type KernelCalls = Map<string, Set<string>>;

/** What a recorded run is given. */
export interface RecordOptions {
  /** Tensors bound to persistable variables (a model's parameters). */
  parameters?: ReadonlyMap<string, Tensor>;
  /** Feeds, as `Executor.run` takes them. */
  feeds?: Readonly<Record<string, Tensor>>;
  /** How long the run may take before it is ended. @default {10000} */
  timeoutMs?: number;
}

/**
 * Runs `desc` on the recording device and adds the kernel calls of each op
 * type to `calls`. A run that fails (a case that panics on purpose) still
 * records what ran before; its error is returned, not thrown.
 *
 * @param desc The program.
 * @param calls Where the calls go.
 * @param options Parameters, feeds and time bound.
 * @returns The run's error, if it failed.
 */
export async function recordKernelCalls(
  desc: ProgramDesc,
  calls: KernelCalls,
  options: RecordOptions = {},
): Promise<unknown> {
  const recorder = { current: undefined as string | undefined };
  const device = recordingDevice(recorder, calls);
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), options.timeoutMs ?? 10000);
  try {
    validateProgram(desc);
    const prepared = new PreparedProgram(desc, wrappedOps(recorder));
    const main = prepared.block(0);
    const scope = new Scope(main.layout);
    bindRunInputs(desc, scope, {
      parameters: options.parameters,
      feeds: options.feeds,
    });
    const scheduler = new Scheduler({ seed: 1, threadContext: false });
    const services: RunServices = {
      scheduler,
      device,
      seed: 1,
      print: () => {},
      cluster: undefined,
    };
    await scheduler.run(
      (thread) => runBlock(main, scope, threadContext(services, thread)),
      { signal: stop.signal },
    );
    return undefined;
  } catch (e) {
    return e;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The calls recorded that their op's definition does not declare, as
 * `op: kernel kind` lines.
 *
 * @param calls The recorded calls.
 * @returns The undeclared ones, sorted.
 */
export function undeclaredCalls(calls: KernelCalls): string[] {
  const found: string[] = [];
  for (const [type, made] of calls) {
    const declared = declaredCalls(OPS.get(type));
    for (const call of made) {
      if (!declared.has(call)) found.push(`${type}: ${call}`);
    }
  }
  return found.sort();
}

// The calls a definition declares, in the recorder's spelling.
function declaredCalls(def: OpDef | undefined): Set<string> {
  const kernels = def?.kernels;
  if (kernels === undefined || kernels === "own") return new Set();
  return new Set(
    kernels.flatMap((use) =>
      typeof use === "string"
        ? [use]
        : use.kinds.map((kind) => `${use.kernel} ${kind}`)
    ),
  );
}

// The CPU device, each kernel call recorded against the op running.
function recordingDevice(
  recorder: { current: string | undefined },
  calls: KernelCalls,
): Device {
  const table = cpuDevice.kernels as unknown as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  const kernels: Record<string, unknown> = {};
  for (const [name, kernel] of Object.entries(table)) {
    kernels[name] = (...args: unknown[]) => {
      const op = recorder.current ?? "(outside an op)";
      const call = typeof args[0] === "string" ? `${name} ${args[0]}` : name;
      let made = calls.get(op);
      if (made === undefined) calls.set(op, made = new Set());
      made.add(call);
      return kernel(...args);
    };
  }
  return { name: "cpu", kernels: kernels as unknown as Kernels };
}

// The registry with each op's run (and resume) naming the op while it runs.
function wrappedOps(
  recorder: { current: string | undefined },
): ReadonlyMap<string, OpDef> {
  const named =
    <A extends unknown[], R>(type: string, f: (...a: A) => R) =>
    (...args: A): R => {
      const outer = recorder.current;
      recorder.current = type;
      try {
        return f(...args);
      } finally {
        recorder.current = outer;
      }
    };
  const wrapped = new Map<string, OpDef>();
  for (const [type, def] of OPS) {
    wrapped.set(type, {
      ...def,
      prepare(ctx: PrepareContext): OpRun | ResumableRun {
        const run = def.prepare(ctx);
        if (typeof run === "function") return named(type, run);
        return {
          run: named(type, run.run),
          resume: named(type, run.resume),
        };
      },
    });
  }
  return wrapped;
}
