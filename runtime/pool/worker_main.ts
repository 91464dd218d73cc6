/**
 * The entry point of a pool worker (a Web Worker). The main thread sends
 * one `init` message per run with the run's shared memory and the program,
 * then one with the WebAssembly modules it compiled (adopted here, not
 * built again); the worker prepares the program on the first, and from the
 * second runs the green threads other workers spawn on it, until the main
 * thread terminates it.
 * It reports a panic, a quiet moment (activity zero: maybe a deadlock),
 * each new chunk of a recording's entries, and, when asked, a snapshot of
 * its threads.
 *
 * @module
 */
/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
import { cpuDevice } from "../../kernels/cpu/device.ts";
import { adoptGemmModule } from "../../kernels/cpu/wasm/gemm.ts";
import type { GreenThread } from "../../scheduler/green_thread.ts";
import { Panic } from "../../scheduler/panic.ts";
import { Scheduler } from "../../scheduler/scheduler.ts";
import { SharedHeap } from "../../scheduler/shared/heap.ts";
import { PoolMember } from "../../scheduler/shared/pool_member.ts";
import { threadSnapshot } from "../../scheduler/thread_dump.ts";
import { ProgramError } from "../core/errors.ts";
import { compactFromBinary } from "../format/compact_from_binary.ts";
import { PreparedProgram } from "../exec/prepare.ts";
import { OPS } from "../ops/mod.ts";
import type { PooledRunServices } from "../core/_pool_services.ts";
import type { WorkerInit, WorkerModules, WorkerReport } from "./worker_pool.ts";
import { PoolRun } from "./pool_run.ts";
import { RunTracer } from "../core/run_tracer.ts";
import { ScheduleRecorder } from "../core/schedule_recorder.ts";
import { ScheduleReplayer } from "../core/schedule_replayer.ts";
import { installTracer } from "./trace_hooks.ts";

let running:
  | { scheduler: Scheduler; service: GreenThread; self: number }
  | undefined;
// This worker's part of a traced run's trace.
let tracer: RunTracer | undefined;
// Starts taking part in the run, once the main thread's modules are here.
let begin: (() => void) | undefined;

function report(message: WorkerReport): void {
  self.postMessage(message);
}

function snapshots() {
  if (running === undefined) return [];
  return running.scheduler.threads()
    .filter((t) => t !== running!.service)
    .map((t) => threadSnapshot(t, running!.self));
}

function start(init: WorkerInit): void {
  const heap = new SharedHeap(init.memory);
  const desc = compactFromBinary(ProgramDescSchema, init.program);
  if (init.traceOrigin !== undefined) {
    tracer = new RunTracer({ worker: init.self, origin: init.traceOrigin });
    installTracer(tracer);
  }
  const schedule = init.schedule === undefined
    ? undefined
    : init.schedule.record === undefined
    ? new ScheduleRecorder(init.self, init.workers, init.schedule.shared)
    : new ScheduleReplayer(
      init.schedule.record,
      init.self,
      init.workers,
      init.schedule.shared,
    );
  // A recording's entries are read by the main thread where they are
  // written; each new chunk of them goes there as it is made.
  if (schedule?.mode === "record") {
    schedule.postChunksTo((chunk) => report({ type: "recordChunk", chunk }));
  }
  const prepared = new PreparedProgram(
    desc,
    OPS,
    tracer !== undefined,
    schedule !== undefined,
  );
  const scheduler = new Scheduler({
    seed: init.seed,
    threadContext: false,
    tracer,
  });
  let service: GreenThread | undefined;
  // The worker's own main thread only keeps its scheduler running: it is
  // not part of the program, so it joins before the run's counting starts.
  const done = scheduler.run((t) => {
    service = t;
    return new Promise<void>(() => {});
  });
  const member = new PoolMember(heap, init.self, scheduler, {
    serviceThreads: 1,
  });
  const pool = new PoolRun(member, init.workers, prepared, () => {});
  const services: PooledRunServices = {
    scheduler,
    device: pool.device(cpuDevice),
    seed: init.seed,
    print: (line) => pool.print(line),
    pool,
    cluster: init.cluster,
    tracer,
    schedule,
  };
  pool.attach(services);
  if (schedule !== undefined) pool.wakeTurnsWith(schedule);
  // The modules follow init at once: a worker that took work before they
  // are adopted would build its own on its first product (20-45 ms cold),
  // while handling them first costs a wait only when this worker is ready
  // before the main thread has compiled them.
  begin = () =>
    member.start({
      onQuiet: () => report({ type: "quiet" }),
      onMessage: (m) => pool.onMessage(m),
    });
  queueMicrotask(() => {
    running = { scheduler, service: service!, self: init.self };
  });
  done.catch((error) => {
    const panic = error instanceof Panic ? error : Panic.from(error, undefined);
    const thread = panic.thread;
    report({
      type: "panic",
      message: panic.message,
      error: panic.cause instanceof ProgramError
        ? panic.cause.message
        : undefined,
      where: panic.where,
      thread: thread && threadSnapshot(thread, init.self),
      // The panicking thread as it was, running, as a one-worker dump shows it.
      threads: thread === undefined ? snapshots() : [
        ...snapshots(),
        {
          ...threadSnapshot(thread, init.self),
          state: "runnable",
          waitReason: undefined,
        },
      ],
    });
  });
}

// An error that escapes every handler (a bug in Rill) fails the run with a
// panic naming this worker, which the main thread prints as one line,
// rather than Deno printing its stack trace.
function died(event: Event, error: unknown): void {
  event.preventDefault();
  report({ type: "died", message: `Uncaught ${error}` });
}
self.addEventListener("error", (e) => died(e, e.error ?? e.message));
self.addEventListener("unhandledrejection", (e) => died(e, e.reason));

self.onmessage = (event: MessageEvent) => {
  const message = event.data;
  if (message.type === "init") return start(message as WorkerInit);
  if (message.type === "modules") {
    // The main thread's compiled modules: no building or compiling here.
    const { modules } = message as WorkerModules;
    adoptGemmModule(false, modules.gemm);
    adoptGemmModule(true, modules.gemmShared);
    begin?.();
    begin = undefined;
    return;
  }
  if (message.type === "crash") throw new Error("crash asked for by a test");
  if (message.type === "trace") {
    const events = tracer?.finish() ?? [];
    return report({ type: "traced", probe: message.probe, events });
  }
  if (message.type === "probe") {
    // Answer after the current macrotask, so that any step in progress has
    // finished and shows in the counts.
    setTimeout(() => {
      report({ type: "probed", probe: message.probe, threads: snapshots() });
    }, 0);
  }
};
