/**
 * The executor: validates a program, prepares its blocks, and runs block 0
 * on the main green thread of a fresh scheduler. The run ends when block 0
 * ends, whatever other green threads are doing (Go's rule).
 *
 * @module
 */
import type { ProgramDesc } from "../../gen/rill/v1/framework_pb.ts";
import type { Device } from "../../kernels/device.ts";
import { readBack } from "../../kernels/device_tensor.ts";
import type { Tensor } from "../../kernels/tensor.ts";
import { Scheduler } from "../../scheduler/scheduler.ts";
import { Deadlock, Panic } from "../../scheduler/panic.ts";
import type { PoolHandle } from "../pool/worker_pool.ts";
import { StartedWorkers } from "../pool/worker_start.ts";
import { runBlock } from "../exec/block_runner.ts";
import { ProgramError } from "../core/errors.ts";
import { bindRunInputs, fetchTargets } from "./feed_binding.ts";
import { PreparedProgram } from "../exec/prepare.ts";
import { OPS } from "../ops/mod.ts";
import { Scope } from "../core/scope.ts";
import type { ClusterSettings, RunServices } from "../core/thread_context.ts";
import { threadContext } from "../exec/thread_context.ts";
import { validateProgram } from "../check/validate.ts";
import type { DeviceName } from "./device_choice.ts";
import { MAX_WORKERS, planRun, type RunPlan } from "./run_plan.ts";
import type { Value } from "../core/value.ts";
import type { RunTracer } from "../core/run_tracer.ts";
import type { TraceEvent } from "../core/trace_event.ts";
import type { ScheduleGate } from "../core/schedule_gate.ts";
import {
  scheduleFingerprint,
  type ScheduleRecord,
} from "../core/schedule_file.ts";
import { toBinary } from "@bufbuild/protobuf";
import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
import { encodeNpy } from "../../kernels/npy.ts";

/** A program and the tensors of its persistable variables. */
export interface ProgramWithParameters {
  /** The program. */
  readonly desc: ProgramDesc;
  /** Tensors bound to variables before the run (a model's parameters). */
  readonly parameters?: ReadonlyMap<string, Tensor>;
}

/** Options of `Executor.run`. */
export interface RunOptions {
  /** Tensors to bind to block-0 variables before running. */
  feeds?: Readonly<Record<string, Tensor>>;
  /**
   * Block-0 variables whose final values to return.
   *
   * @default {the variables block 0's `fetch` ops read: a model's fetch targets (`fetchTargets`)}
   */
  fetch?: readonly string[];
  /** A scope from an earlier run of the same program, to run in again. */
  scope?: Scope;
  /** The file the program came from, named in errors. */
  file?: string;
  /**
   * Ends the run when aborted: the run rejects with the signal's reason,
   * and its green threads and timers stop (a loop within one time slice).
   */
  signal?: AbortSignal;
  /**
   * Pool workers already started (`new StartedWorkers(n)`, as the CLI does
   * before it reads the program): a pooled run takes them first. The run
   * terminates those it does not take, whichever way it ends.
   *
   * @default {workers started as the run begins, when `workers` is a number above 1 and the program has a `go`, a `parallel_for` or a product op}
   */
  startedWorkers?: StartedWorkers;
}

/** What a run returns. */
export interface RunResult {
  /** The fetched values by name. */
  fetched: Record<string, Value>;
  /** Block 0's scope after the run. */
  scope: Scope;
  /** The device the run's kernels used, and why (`plan.deviceReason`). */
  device: string;
  /** How the run was planned: device, workers, placement (`--explain`). */
  plan: RunPlan;
}

/** Options of `new Executor`. */
export interface ExecutorOptions {
  /**
   * The device tensor kernels run on: a Device, or one by name (`auto`
   * uses the GPU on a hardware adapter for a program with large float
   * tensors). How the device and `workers` settle each other is the run
   * plan's to decide (`planRun`, runtime/run/run_plan.ts); the run returns
   * it.
   *
   * @default {"cpu"}
   */
  device?: Device | DeviceName;
  /** Seeds `select`'s choices and random ops. @default {1} */
  seed?: number;
  /**
   * Where `kube_get_workers_addrs` and `self_addr` look (`--worker-addrs`,
   * `--listen`); by default RILL_WORKERS and the pod's environment.
   */
  cluster?: ClusterSettings;
  /** Where `print` writes a line. @default {a line to stdout} */
  print?: (line: string) => void;
  /**
   * How many workers a run may use: the main thread plus `workers - 1` Web
   * Workers, started only when the program has a `go` or `parallel_for`
   * block that may move (see `dump`) or a product large enough to split.
   * 1 keeps everything on the main thread; `"auto"` asks for every core
   * (one when `device` is `webgpu`). The run plan decides (`planRun`).
   *
   * @default {1}
   */
  workers?: number | "auto";
  /**
   * Called with the run's worker pool when one starts: a hook for tests
   * (`kill(index)` fails the run as if worker `index` had died).
   *
   * @default {undefined}
   */
  onPool?: (pool: PoolHandle) => void;
  /**
   * Traces each run: when the run ends (also when it panics or deadlocks),
   * this gets its events in the Chrome Trace Event format, every worker's
   * (see `runtime/core/run_tracer.ts`); `traceJson` and `traceHtml` in
   * `runtime/run/trace_file.ts` make files of them. Untraced when
   * undefined.
   *
   * @default {undefined}
   *
   * @example Tracing a run
   * ```ts
   * import { Executor } from "./executor.ts";
   * import type { TraceEvent } from "../core/trace_event.ts";
   * import { fillConstant, go, makeChannel, Program, recv, send } from "../../mod.ts";
   * import { assert } from "@std/assert";
   *
   * const p = new Program();
   * p.guard(() => {
   *   const ch = makeChannel({ dtype: "int32" });
   *   go(() => send(ch, fillConstant({ shape: [1], dtype: "int32", value: 7 })));
   *   recv(ch);
   * });
   * let events: TraceEvent[] = [];
   * await new Executor({ trace: (e) => events = e }).run(p.desc);
   * // A flow from the send (s) to the receive (f), with one id.
   * const s = events.find((e) => e.ph === "s")!;
   * assert(events.some((e) => e.ph === "f" && e.id === s.id));
   * ```
   */
  trace?: (events: TraceEvent[]) => void;
  /**
   * Records each run's channel order (`record` gets the record file's
   * bytes when the run ends, however it ends), or replays a record
   * (`replay`: the run follows it, with its seed, on any worker count, and
   * a run that cannot follow it fails with a ProgramError naming the first
   * divergence). See runtime/core/schedule_replayer.ts.
   *
   * @default {undefined}
   */
  schedule?:
    | { readonly record: (bytes: Uint8Array) => void }
    | { readonly replay: ScheduleRecord; readonly file: string };
}

const encoder = new TextEncoder();

// Whether a run of `desc` may start a pool: it has an op that spawns or
// one worth splitting (the plan's finer rules come later, on the
// validated program).
function mayUsePool(desc: ProgramDesc): boolean {
  return desc.blocks.some((b) =>
    b.ops.some((op) =>
      op.type === "go" || op.type === "parallel_for" ||
      OPS.get(op.type)?.poolWorthy !== undefined
    )
  );
}

function printToStdout(line: string): void {
  const bytes = encoder.encode(line + "\n");
  let written = 0;
  while (written < bytes.length) {
    written += Deno.stdout.writeSync(bytes.subarray(written));
  }
}

/**
 * Runs programs.
 *
 * @example Usage
 * ```ts
 * import { Executor, Program, fillConstant, print } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const program = new Program();
 * program.guard(() => print(fillConstant({ shape: [1], dtype: "float32", value: 0.1 })));
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(program);
 * assertEquals(lines, ["0.1"]);
 * ```
 */
export class Executor {
  readonly #device: Device | DeviceName;
  readonly #seed: number;
  readonly #cluster: ClusterSettings | undefined;
  readonly #print: (line: string) => void;
  readonly #workers: number | "auto";
  readonly #onPool: ((pool: PoolHandle) => void) | undefined;
  readonly #trace: ((events: TraceEvent[]) => void) | undefined;
  readonly #schedule: ExecutorOptions["schedule"];

  /**
   * Makes an executor.
   *
   * @param options Device, seed, output, workers.
   * @throws {RangeError} If `workers` is not an integer in [1, 256].
   */
  constructor(options: ExecutorOptions = {}) {
    this.#device = options.device ?? "cpu";
    this.#seed = options.seed ?? 1;
    this.#cluster = options.cluster;
    this.#print = options.print ?? printToStdout;
    const workers = options.workers ?? 1;
    if (
      workers !== "auto" &&
      (!Number.isInteger(workers) || workers < 1 || workers > MAX_WORKERS)
    ) {
      throw new RangeError(
        `workers: ${workers} is not an integer from 1 to ${MAX_WORKERS}`,
      );
    }
    this.#workers = workers;
    this.#onPool = options.onPool;
    this.#trace = options.trace;
    this.#schedule = options.schedule;
  }

  /**
   * Validates and runs block 0 of `program`. Rejects with a `ProgramError`
   * for an invalid program (nothing runs), or with a `Panic` or `Deadlock`
   * raised while running.
   *
   * A program loaded from a model directory (`Program.load(dir)`) carries
   * its parameters: they are bound to their variables before block 0 runs.
   * A feed binds the variable it names; when a block-0 `feed` op writes
   * that variable, the op binds it (Fluid's `feed_target_names`). Every
   * feed must fit its variable's declaration (kind, dtype, rank, declared
   * dims), and every block-0 `feed` op must have a feed, or nothing runs.
   * Without `fetch`, the run returns what the program's `fetch` ops
   * fetch (a saved model's fetch targets). A fetched variable that the run
   * never wrote is a `Panic` at the end of the run. Fetched tensors come back on the host; other values left in
   * the scope may still be `DeviceTensor`s on a GPU: `readBack` them before
   * reading their `data`.
   *
   * @param program The program, or a builder `Program` (with parameters).
   * @param options Feeds, fetches, scope.
   * @returns The fetched values and block 0's scope.
   */
  async run(
    program: ProgramDesc | ProgramWithParameters,
    options: RunOptions = {},
  ): Promise<RunResult> {
    const desc = "desc" in program ? program.desc : program;
    // The pool's workers load their modules while this thread validates,
    // prepares and plans; the run ends them if it does not use them.
    const started = options.startedWorkers ?? this.#startWorkers(desc);
    try {
      return await this.#run(desc, program, options, started);
    } finally {
      started?.release();
    }
  }

  // Workers to start ahead of a run that asked for a number of them and
  // may use a pool (the plan decides; see run_plan.ts).
  #startWorkers(desc: ProgramDesc): StartedWorkers | undefined {
    const asked = this.#workers;
    if (asked === "auto" || asked < 2 || !mayUsePool(desc)) return undefined;
    return new StartedWorkers(asked - 1);
  }

  async #run(
    desc: ProgramDesc,
    program: ProgramDesc | ProgramWithParameters,
    options: RunOptions,
    started: StartedWorkers | undefined,
  ): Promise<RunResult> {
    validateProgram(desc, { file: options.file });
    // The tracer, recorder and replayer load for the runs that use them.
    const tracer = this.#trace &&
      new (await import("../core/run_tracer.ts")).RunTracer();
    const schedule = this.#schedule;
    // A recording needs the fingerprint only as it ends: its digest, off
    // this thread, runs meanwhile. (The catch only keeps a run that fails
    // before awaiting it from reporting its rejection as unhandled.)
    const fingerprint = schedule &&
      runFingerprint(desc, options.feeds ?? {});
    fingerprint?.catch(() => {});
    if (schedule !== undefined && "replay" in schedule) {
      checkRecordFits(schedule.replay, await fingerprint!, schedule.file);
    }
    const seed = schedule !== undefined && "replay" in schedule
      ? schedule.replay.seed
      : this.#seed;
    const prepared = new PreparedProgram(
      desc,
      OPS,
      tracer !== undefined,
      schedule !== undefined,
    );
    const main = prepared.block(0);
    const scope = options.scope ?? new Scope(main.layout);
    if (scope.layout.names.join("\0") !== main.layout.names.join("\0")) {
      throw new ProgramError("run: the scope was made for another program");
    }
    const fetch = options.fetch ?? fetchTargets(desc);
    for (const name of fetch) {
      if (main.layout.slotOf(name) === undefined) {
        throw new ProgramError(
          `fetch: variable "${name}" is not declared in block 0`,
          { variable: name },
        );
      }
    }
    bindRunInputs(desc, scope, {
      parameters: "parameters" in program ? program.parameters : undefined,
      feeds: options.feeds,
      file: options.file,
    });
    // No async context per green thread: every op names its thread from its
    // ThreadContext, and a million parked threads fit in 1 GiB.
    const scheduler = new Scheduler({
      seed,
      threadContext: false,
      tracer,
    });
    const plan = await planRun(desc, {
      device: this.#device,
      workers: this.#workers,
      feeds: options.feeds,
    });
    const workers = plan.workers;
    const gate: ScheduleGate | undefined = schedule === undefined
      ? undefined
      : "replay" in schedule
      ? new (await import("../core/schedule_replayer.ts")).ScheduleReplayer(
        schedule.replay,
        0,
        workers,
      )
      : new (await import("../core/schedule_recorder.ts")).ScheduleRecorder(
        0,
        workers,
      );
    const hooks = tracer &&
      (await import("../pool/trace_hooks.ts")).installTracer(tracer);
    const fetched: Record<string, Value> = {};
    try {
      await this.#runOn(plan, prepared, scheduler, scope, {
        ...options,
        startedWorkers: started,
      }, {
        tracer,
        seed,
        gate,
      });
      for (const name of fetch) {
        fetched[name] = scope.get(name);
        if (fetched[name] === undefined) {
          throw new Panic(`fetch: variable "${name}" was never written`);
        }
      }
      // Fetched tensors leave the device: their elements come back now.
      await readBack(Object.values(fetched));
    } catch (e) {
      if (e instanceof Deadlock) tracer?.deadlocked(e.message);
      // A replay that stalls with threads waiting for their turn diverged.
      const diverged = e instanceof Deadlock && gate?.mode === "replay"
        ? gate.stall()
        : undefined;
      throw diverged ?? e;
    } finally {
      if (
        gate?.mode === "record" && schedule !== undefined &&
        "record" in schedule
      ) {
        schedule.record(gate.encode(await fingerprint!, seed));
      }
      hooks?.uninstall();
      if (tracer !== undefined) this.#trace!(tracer.finish());
    }
    return { fetched, scope, device: plan.deviceReason, plan };
  }

  // Runs block 0 on one worker or a pool.
  async #runOn(
    plan: RunPlan,
    prepared: PreparedProgram,
    scheduler: Scheduler,
    scope: Scope,
    options: RunOptions,
    run: { tracer?: RunTracer; seed: number; gate?: ScheduleGate },
  ): Promise<void> {
    const { tracer, seed, gate } = run;
    if (plan.workers > 1) {
      // The pool's modules load only for a run that uses them.
      const { runWithPool } = await import("../pool/run_with_pool.ts");
      return runWithPool({
        prepared,
        scheduler,
        scope,
        signal: options.signal,
        device: plan.device,
        workers: plan.workers,
        seed,
        print: this.#print,
        cluster: this.#cluster,
        onPool: this.#onPool,
        tracer,
        started: options.startedWorkers,
        schedule: gate,
      });
    }
    const services: RunServices = {
      scheduler,
      device: plan.device,
      seed,
      print: this.#print,
      cluster: this.#cluster,
      tracer,
      schedule: gate,
    };
    const main = prepared.block(0);
    await scheduler.run(
      (thread) => {
        const ran = runBlock(main, scope, threadContext(services, thread));
        return gate === undefined ? ran : gate.mainEnds(ran, thread);
      },
      { signal: options.signal },
    );
  }
}

// The fingerprint a record carries: the program and its feeds.
function runFingerprint(
  desc: ProgramDesc,
  feeds: Readonly<Record<string, Tensor>>,
): Promise<Uint8Array> {
  return scheduleFingerprint(
    toBinary(ProgramDescSchema, desc),
    Object.entries(feeds).map(([name, t]) => [name, encodeNpy(t)] as const),
  );
}

// A replayed record must come from this program with these feeds.
function checkRecordFits(
  record: ScheduleRecord,
  fingerprint: Uint8Array,
  file: string,
): void {
  if (record.fingerprint.every((b, i) => b === fingerprint[i])) return;
  throw new ProgramError(
    `--replay: "${file}" was recorded from another program or other feeds`,
  );
}
