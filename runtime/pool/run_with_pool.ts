/**
 * A run of block 0 on the main thread with Web Workers beside it: the
 * shared heap, the wake rings, the pool of workers, and the run's own
 * bookkeeping (`PoolRun`), set up and torn down around one scheduler run.
 * The executor imports this module only for a run that uses a pool, so a
 * run on one thread never loads the pool's modules.
 *
 * @module
 */
import { toBinary } from "@bufbuild/protobuf";
import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
import type { Device } from "../../kernels/device.ts";
import { Panic } from "../../scheduler/panic.ts";
import type { Scheduler } from "../../scheduler/scheduler.ts";
import { SharedHeap } from "../../scheduler/shared/heap.ts";
import { PoolMember } from "../../scheduler/shared/pool_member.ts";
import { createWakeRings } from "../../scheduler/shared/wake_ring.ts";
import {
  formatThreadDump,
  threadSnapshot,
} from "../../scheduler/thread_dump.ts";
import { runBlock } from "../exec/block_runner.ts";
import type { PreparedProgram } from "../exec/prepare.ts";
import { Scope } from "../core/scope.ts";
import type { PooledRunServices } from "../core/_pool_services.ts";
import type { ClusterSettings } from "../core/thread_context.ts";
import { threadContext } from "../exec/thread_context.ts";
import { TensorArray } from "../core/value.ts";
import { PoolRun } from "./pool_run.ts";
import { SharedTensorArray } from "./shared_tensor_array.ts";
import {
  type PoolHandle,
  type PoolModules,
  WorkerPool,
} from "./worker_pool.ts";
import type { StartedWorkers } from "./worker_start.ts";
import { gemmModule } from "../../kernels/cpu/wasm/gemm.ts";
import type { RunTracer } from "../core/run_tracer.ts";
import type { ScheduleGate } from "../core/schedule_gate.ts";

/** What {@linkcode runWithPool} runs, and with what. */
export interface PooledRunOptions {
  /** The program, prepared. */
  readonly prepared: PreparedProgram;
  /** The main thread's scheduler, idle. */
  readonly scheduler: Scheduler;
  /** Block 0's scope: the run starts from its values and leaves its own. */
  readonly scope: Scope;
  /** Stops the run. */
  readonly signal: AbortSignal | undefined;
  /** The kernels' device. */
  readonly device: Device;
  /** The threads, the main one included: 2 or more. */
  readonly workers: number;
  /** The run's seed. */
  readonly seed: number;
  /** Prints a line of the program's output. */
  readonly print: (line: string) => void;
  /** Where the program's workers are, for the cluster ops. */
  readonly cluster: ClusterSettings | undefined;
  /** Gets the pool once it has started (a hook for tests). */
  readonly onPool: ((pool: PoolHandle) => void) | undefined;
  /** The run's tracer on this worker, when it is traced. */
  readonly tracer?: RunTracer;
  /**
   * Workers started ahead of the run (worker_start.ts), taken first.
   *
   * @default {undefined}
   */
  readonly started?: StartedWorkers;
  /** The run's recorder or replayer on the main thread, if any. */
  readonly schedule?: ScheduleGate;
}

/**
 * Runs block 0 of a program here with `workers - 1` Web Workers beside
 * this thread, and stops them when the run ends, whichever way.
 *
 * @param options The program, the scope, and the run's settings.
 * @returns When block 0 has ended and the workers are stopped.
 * @throws {Panic} Or a `Deadlock`, as a run on one thread would; a panic
 * of the main thread's lists every worker's threads in its dump.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, print, Program } from "../../mod.ts";
 * import { PreparedProgram } from "../exec/prepare.ts";
 * import { OPS } from "../ops/mod.ts";
 * import { Scope } from "../core/scope.ts";
 * import { runWithPool } from "./run_with_pool.ts";
 * import { Scheduler } from "../../scheduler/scheduler.ts";
 * import { cpuDevice } from "../../kernels/cpu/device.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const program = new Program();
 * program.guard(() => print(fillConstant({ shape: [1], value: 7 })));
 * const prepared = new PreparedProgram(program.desc, OPS);
 * const lines: string[] = [];
 * await runWithPool({
 *   prepared,
 *   scheduler: new Scheduler({ seed: 1, threadContext: false }),
 *   scope: new Scope(prepared.block(0).layout),
 *   signal: undefined,
 *   device: cpuDevice,
 *   workers: 2,
 *   seed: 1,
 *   print: (line) => lines.push(line),
 *   cluster: undefined,
 *   onPool: undefined,
 * });
 * assertEquals(lines, ["7"]);
 * ```
 */
export async function runWithPool(options: PooledRunOptions): Promise<void> {
  const { prepared, scheduler, scope, signal } = options;
  const heap = SharedHeap.create();
  createWakeRings(heap, options.workers);
  const member = new PoolMember(heap, 0, scheduler);
  const pool = new PoolRun(member, options.workers, prepared, options.print);
  const services: PooledRunServices = {
    scheduler,
    device: pool.device(options.device),
    seed: options.seed,
    print: (line) => pool.print(line),
    pool,
    cluster: options.cluster,
    tracer: options.tracer,
    schedule: options.schedule,
  };
  pool.attach(services);
  if (options.schedule !== undefined) pool.wakeTurnsWith(options.schedule);
  const failed = new AbortController();
  const workers = new WorkerPool({
    heap,
    workers: options.workers,
    program: toBinary(ProgramDescSchema, prepared.desc),
    seed: options.seed,
    cluster: options.cluster,
    localThreads: () => scheduler.threads().map((t) => threadSnapshot(t, 0)),
    fail: (error) => failed.abort(error),
    traceOrigin: options.tracer?.origin,
    modules: poolModules,
    started: options.started,
    schedule: options.schedule === undefined ? undefined : {
      shared: options.schedule.shared,
      record: options.schedule.record,
    },
  });
  member.start({
    onQuiet: () => workers.quiet(),
    onMessage: (m) => pool.onMessage(m),
  });
  options.onPool?.(workers);
  const main = prepared.block(0);
  const arrays = () => pool.newArray();
  const root = new Scope(main.layout, undefined, arrays);
  // The run starts from the caller's scope, its tensor arrays moved into
  // shared memory, and leaves its values there.
  scope.values.forEach((v, i) => {
    if (
      !(v instanceof TensorArray) || v instanceof SharedTensorArray ||
      !(root.values[i] instanceof TensorArray) // a feed or fetch list
    ) {
      root.values[i] = v;
    } else if (v.length > 0) {
      const shared = root.values[i] as TensorArray;
      shared.resize(v.length);
      v.snapshot().forEach((t, k) => t !== undefined && shared.write(k, t));
    }
  });
  // Where a recording ends: what each worker has recorded when the run
  // ends, however busy it is then (record_entries.ts).
  let recorded: number[] | undefined;
  const gate = options.schedule;
  try {
    await scheduler.run(
      (thread) => {
        const ran = runBlock(main, root, threadContext(services, thread));
        return gate === undefined ? ran : gate.mainEnds(ran, thread);
      },
      {
        signal: signal === undefined
          ? failed.signal
          : AbortSignal.any([signal, failed.signal]),
      },
    ).finally(() => {
      if (gate?.mode !== "record") return;
      member.lock();
      recorded = gate.publishedWords();
      member.unlock();
    });
  } catch (error) {
    // A panic of the main thread's: its dump lists this worker's threads;
    // add the other workers'.
    if (error instanceof Panic && error.thread?.worker === undefined) {
      const others = formatThreadDump(await workers.threads());
      if (others !== "") {
        error.dump = sortedDump(`${error.dump}\n\n${others}`);
      }
    }
    throw error;
  } finally {
    pool.printLog();
    if (options.tracer !== undefined) {
      options.tracer.adopt(await workers.traces());
    }
    if (gate?.mode === "record" && recorded !== undefined) {
      gate.adopt(await workers.recordings(recorded));
    }
    workers.stop();
    pool.close();
    member.close();
    scope.values.splice(0, scope.values.length, ...root.values);
  }
}

// The modules every worker adopts, compiled here once. Building the GEMM
// module costs 20–45 ms on a cold thread (the builder's own first run),
// which each worker would otherwise pay on its first product; the main
// thread pays it at most once per process (gemm.ts caches it), after the
// workers have their `init`.
function poolModules(): PoolModules {
  return { gemm: gemmModule(false), gemmShared: gemmModule(true) };
}

// A dump's entries in thread id order.
function sortedDump(dump: string): string {
  const id = (entry: string) => Number(/^goroutine (\d+)/.exec(entry)?.[1]);
  return dump.split("\n\n").sort((a, b) => id(a) - id(b)).join("\n\n");
}
