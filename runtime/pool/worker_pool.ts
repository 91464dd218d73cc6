/**
 * The Web Workers of one pooled run, seen from the main thread (worker 0):
 * starting them with the program, hearing their panics, confirming a
 * deadlock with all of them, and stopping them when the run ends.
 *
 * Deadlock is confirmed, not assumed: when the run's activity reads zero
 * (every thread of every worker blocked, nothing pending), the main thread
 * notes the heap's Epoch and asks every worker for a snapshot of its
 * threads; each answers after finishing the step it was in. If activity is
 * still zero and Epoch unchanged once all have answered, nothing ran in
 * between: the run is deadlocked, and the snapshots make one dump.
 *
 * @module
 */
import type { ScheduleShared } from "../core/schedule_gate.ts";
import type { ScheduleRecord } from "../core/schedule_file.ts";
import { CHUNK, chunksHolding, entriesUpTo } from "../core/record_entries.ts";
import { Deadlock, Panic } from "../../scheduler/panic.ts";
import { ProgramError } from "../core/errors.ts";
import { Global, type SharedHeap } from "../../scheduler/shared/heap.ts";
import type { ThreadInfo } from "../../scheduler/thread_dump.ts";
import { formatThreadDump } from "../../scheduler/thread_dump.ts";
import type { ClusterSettings } from "../core/thread_context.ts";
import type { TraceEvent } from "../core/trace_event.ts";
import { newPoolWorker, type StartedWorkers } from "./worker_start.ts";

/** What the main thread sends a worker to start it. */
export interface WorkerInit {
  readonly type: "init";
  /** The run's shared memory. */
  readonly memory: WebAssembly.Memory;
  /** The worker's index (1 and up; the main thread is 0). */
  readonly self: number;
  /** How many workers the run has, the main thread included. */
  readonly workers: number;
  /** The program, binary. */
  readonly program: Uint8Array;
  /** The run's seed. */
  readonly seed: number;
  /** The run's cluster settings (plain data). */
  readonly cluster?: ClusterSettings;
  /** Set when the run is traced: when its trace began (epoch ms). */
  readonly traceOrigin?: number;
  /** Set when the run is recorded or replayed (`ScheduleGate`). */
  readonly schedule?: WorkerSchedule;
}

/**
 * What the main thread sends a worker right after its `init`: the
 * WebAssembly modules it compiled, which the worker adopts instead of
 * building its own (`gemm`: over an unshared memory, `gemmShared`: over
 * the heap), unless it has built one already (a product that came first).
 */
export interface WorkerModules {
  readonly type: "modules";
  /** The modules. */
  readonly modules: PoolModules;
}

/** Compiled WebAssembly modules a worker adopts (see `WorkerInit`). */
export interface PoolModules {
  /** The GEMM module over an unshared memory (a product on one worker). */
  readonly gemm: WebAssembly.Module;
  /** The GEMM module over a shared memory (a product split by rows). */
  readonly gemmShared: WebAssembly.Module;
}

/** What a worker needs to record or replay its part of a run. */
export interface WorkerSchedule {
  /** The shared memory of the main thread's gate. */
  readonly shared: ScheduleShared;
  /** The record being replayed, if replaying. */
  readonly record?: ScheduleRecord;
}

/** What a worker tells the main thread. */
export type WorkerReport =
  | { readonly type: "quiet" }
  | {
    readonly type: "probed";
    readonly probe: number;
    readonly threads: readonly ThreadInfo[];
  }
  | {
    readonly type: "panic";
    readonly message: string;
    /** The message of the ProgramError it wraps: an operational failure. */
    readonly error?: string;
    readonly where: string | undefined;
    readonly thread: ThreadInfo | undefined;
    readonly threads: readonly ThreadInfo[];
  }
  | { readonly type: "died"; readonly message: string }
  | {
    readonly type: "traced";
    readonly probe: number;
    readonly events: readonly TraceEvent[];
  }
  | {
    /** A new chunk of a recording's entries (record_entries.ts). */
    readonly type: "recordChunk";
    readonly chunk: Int32Array;
  };

/** Options of {@linkcode WorkerPool}. */
export interface WorkerPoolOptions {
  /** The run's heap (made by the main thread). */
  readonly heap: SharedHeap;
  /** How many workers, the main thread included. */
  readonly workers: number;
  /** The program, binary. */
  readonly program: Uint8Array;
  /** The run's seed. */
  readonly seed: number;
  /** The run's cluster settings. */
  readonly cluster?: ClusterSettings;
  /** Set when the run is traced: when its trace began (epoch ms). */
  readonly traceOrigin?: number;
  /** Set when the run is recorded or replayed. */
  readonly schedule?: WorkerSchedule;
  /** The main thread's own threads, for dumps. */
  readonly localThreads: () => readonly ThreadInfo[];
  /** Ends the run with a panic or a deadlock. */
  readonly fail: (error: Panic | Deadlock) => void;
  /**
   * Compiles the modules each worker adopts. Called once every worker has
   * been sent its `init`, so that the workers prepare the program while
   * this thread compiles (about 25–60 ms on a cold thread).
   */
  readonly modules: () => PoolModules;
  /**
   * Workers started ahead of the run, taken first (see worker_start.ts);
   * the rest start now.
   *
   * @default {undefined}
   */
  readonly started?: StartedWorkers;
}

/**
 * What a run's pool lets a test do to it (`ExecutorOptions.onPool`).
 *
 * @example Usage
 * ```ts
 * import { Executor, Program, fillConstant, go, print } from "../../mod.ts";
 * import type { PoolHandle } from "./worker_pool.ts";
 *
 * const program = new Program();
 * program.guard(() => go(() => print(fillConstant({ shape: [1], value: 1 }))));
 * let pool: PoolHandle | undefined;
 * await new Executor({ workers: 2, print: () => {}, onPool: (p) => pool = p })
 *   .run(program);
 * pool?.stop(); // already stopped by the run's end: nothing happens
 * ```
 */
export interface PoolHandle {
  /** Stops every worker, as the run's end does. */
  stop(): void;
  /**
   * Kills worker `index` as if it had died, failing the run.
   *
   * @param index A worker index, 1 and up.
   */
  kill(index: number): void;
  /**
   * Makes worker `index` throw an error nothing catches, as a bug in Rill
   * would: the run fails through the worker's error event.
   *
   * @param index A worker index, 1 and up.
   */
  crash(index: number): void;
  /**
   * Rows of split operators (large matmuls, elementwise ops, reductions)
   * that a worker computed for another worker's call, so far in the run:
   * zero while no operator has really been split.
   *
   * @returns The count.
   */
  helpedRows(): number;
}

/**
 * A run's Web Workers.
 */
export class WorkerPool implements PoolHandle {
  readonly #options: WorkerPoolOptions;
  readonly #workers: Worker[] = [];
  #probe = 0;
  #answers: ThreadInfo[][] | undefined;
  // Snapshots asked for by `threads()`, by probe number.
  #asked = new Map<number, (threads: readonly ThreadInfo[]) => void>();
  // Traces asked for by `traces()`, by probe number.
  #traced = new Map<number, (events: readonly TraceEvent[]) => void>();
  // Each worker's chunks of recorded entries, as they arrived (worker w's
  // at w - 1), and a `recordings()` waiting for more.
  readonly #recordChunks: Int32Array[][] = [];
  #chunkArrived: (() => void) | undefined = undefined;
  #epoch = 0;
  #stopped = false;

  /**
   * Takes `workers - 1` Web Workers, those started ahead first, and sends
   * each the run.
   *
   * @param options The run.
   */
  constructor(options: WorkerPoolOptions) {
    this.#options = options;
    for (let w = 1; w < options.workers; w++) {
      this.#recordChunks.push([]);
      const started = options.started?.take();
      const worker = started?.worker ?? newPoolWorker();
      worker.onmessage = (e) => this.#heard(w, e.data as WorkerReport);
      worker.onerror = (e) => {
        e.preventDefault();
        this.#died(w, e.message);
      };
      if (started?.failed !== undefined) {
        // It failed while loading, before this pool listened.
        queueMicrotask(() => this.#died(w, started.failed!));
      }
      const init: WorkerInit = {
        type: "init",
        memory: options.heap.memory,
        self: w,
        workers: options.workers,
        program: options.program,
        seed: options.seed,
        cluster: options.cluster,
        traceOrigin: options.traceOrigin,
        schedule: options.schedule,
      };
      worker.postMessage(init);
      this.#workers.push(worker);
    }
    if (this.#workers.length === 0) return;
    const modules: WorkerModules = {
      type: "modules",
      modules: options.modules(),
    };
    for (const worker of this.#workers) worker.postMessage(modules);
  }

  /**
   * The run's activity may have dropped to zero: confirm a deadlock with
   * every worker (see the top of this file).
   */
  quiet(): void {
    const heap = this.#options.heap;
    if (this.#stopped || this.#answers !== undefined) return;
    if (Atomics.load(heap.i32, Global.Active) !== 0) return;
    this.#epoch = Atomics.load(heap.i32, Global.Epoch);
    this.#probe++;
    this.#answers = [];
    for (const worker of this.#workers) {
      worker.postMessage({ type: "probe", probe: this.#probe });
    }
    setTimeout(
      () => this.#answer(this.#probe, this.#options.localThreads()),
      0,
    );
  }

  /**
   * The trace events every other worker recorded (a traced run, as it
   * ends); a worker that does not answer within 2 s is left out.
   *
   * @returns Their events.
   */
  async traces(): Promise<TraceEvent[]> {
    return (await this.#gather("trace", this.#traced, [], 2000)).flat();
  }

  /**
   * Every other worker's recorded entries up to `words`, its published
   * count (a recorded run, as it ends: `ScheduleRecorder.publishedWords`).
   * The chunks that hold them were posted before the count was published,
   * so they arrive without the worker doing anything more, even when it
   * is deep in a long kernel; this waits for the ones still queued.
   * Only chunks lost with a terminated worker (`kill`) would never come:
   * after 10 s, the entries of those that did are taken.
   *
   * @param words Each worker's published count (worker 0's first).
   * @returns Views of their entries.
   */
  async recordings(words: readonly number[]): Promise<Int32Array[]> {
    const missing = () =>
      this.#recordChunks.some((chunks, i) =>
        chunks.length < chunksHolding(words[i + 1])
      );
    if (missing()) {
      const { promise, resolve } = Promise.withResolvers<void>();
      const timer = setTimeout(resolve, 10_000);
      this.#chunkArrived = () => {
        if (!missing()) resolve();
      };
      await promise;
      clearTimeout(timer);
      this.#chunkArrived = undefined;
    }
    return this.#recordChunks.flatMap((chunks, i) =>
      entriesUpTo(chunks, Math.min(words[i + 1], chunks.length * CHUNK))
    );
  }

  // Asks every worker for its part of something the run kept, and waits
  // for the answers; a worker that does not answer within `ms` gives
  // `none`.
  #gather<T>(
    type: string,
    waiting: Map<number, (answer: T) => void>,
    none: T,
    ms: number,
  ): Promise<T[]> {
    return Promise.all(this.#workers.map((worker) => {
      const probe = ++this.#probe;
      const { promise, resolve } = Promise.withResolvers<T>();
      waiting.set(probe, resolve);
      const timer = setTimeout(() => resolve(none), ms);
      worker.postMessage({ type, probe });
      return promise.finally(() => {
        clearTimeout(timer);
        waiting.delete(probe);
      });
    }));
  }

  /**
   * The threads of every other worker, for a dump: each worker answers
   * after the step it is in; a worker that does not answer within 500 ms
   * is left out.
   *
   * @returns Their snapshots.
   */
  async threads(): Promise<ThreadInfo[]> {
    const all = await Promise.all(this.#workers.map((worker) => {
      const probe = ++this.#probe;
      const { promise, resolve } = Promise.withResolvers<
        readonly ThreadInfo[]
      >();
      this.#asked.set(probe, resolve);
      const timer = setTimeout(() => resolve([]), 500);
      worker.postMessage({ type: "probe", probe });
      return promise.finally(() => {
        clearTimeout(timer);
        this.#asked.delete(probe);
      });
    }));
    return all.flat();
  }

  /**
   * Stops every worker (Go's rule: when main returns, the program ends).
   */
  stop(): void {
    this.#stopped = true;
    Atomics.store(this.#options.heap.i32, Global.Ended, 1);
    for (const worker of this.#workers) worker.terminate();
  }

  /**
   * Kills worker `index` as if it had died, failing the run (a test hook).
   *
   * @param index A worker index, 1 and up.
   */
  kill(index: number): void {
    this.#workers[index - 1]?.terminate();
    this.#died(index, "terminated");
  }

  /**
   * Makes worker `index` throw an uncaught error (a test hook).
   *
   * @param index A worker index, 1 and up.
   */
  crash(index: number): void {
    this.#workers[index - 1]?.postMessage({ type: "crash" });
  }

  /**
   * Rows of split operators computed by a worker for another's call.
   *
   * @returns The count.
   */
  helpedRows(): number {
    return Atomics.load(this.#options.heap.i32, Global.HelpedRows);
  }

  #heard(worker: number, report: WorkerReport): void {
    if (this.#stopped) return;
    switch (report.type) {
      case "quiet":
        return this.quiet();
      case "probed":
        return this.#answer(report.probe, report.threads);
      case "traced":
        return this.#traced.get(report.probe)?.(report.events);
      case "recordChunk":
        this.#recordChunks[worker - 1].push(report.chunk);
        return this.#chunkArrived?.();
      case "died":
        return this.#died(worker, report.message);
      case "panic": {
        const panic = new Panic(report.message, {
          where: report.where,
          thread: report.thread,
          cause: report.error === undefined
            ? undefined
            : new ProgramError(report.error),
        });
        panic.dump = formatThreadDump(
          [...this.#options.localThreads(), ...report.threads].sort((a, b) =>
            a.id - b.id
          ),
        );
        return this.#fail(panic);
      }
    }
  }

  #answer(probe: number, threads: readonly ThreadInfo[]): void {
    const asked = this.#asked.get(probe);
    if (asked !== undefined) return asked(threads);
    const answers = this.#answers;
    if (answers === undefined || probe !== this.#probe) return;
    answers.push([...threads]);
    if (answers.length < this.#workers.length + 1) return;
    this.#answers = undefined;
    const heap = this.#options.heap;
    const still = Atomics.load(heap.i32, Global.Active) === 0 &&
      Atomics.load(heap.i32, Global.Epoch) === this.#epoch;
    if (!still) {
      // Something ran meanwhile; look again if it went quiet since.
      return queueMicrotask(() => this.quiet());
    }
    const all = answers.flat().sort((a, b) => a.id - b.id);
    this.#fail(new Deadlock(all));
  }

  #died(worker: number, why: string): void {
    if (this.#stopped) return;
    this.#fail(new Panic(`worker ${worker} died: ${why}`));
  }

  #fail(error: Panic | Deadlock): void {
    if (this.#stopped) return;
    this.#options.fail(error);
  }
}
