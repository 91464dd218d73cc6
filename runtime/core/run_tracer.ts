// A run trace as it is recorded, on one worker: the events of the Chrome
// Trace Event format (what Perfetto and chrome://tracing open), one track
// per green thread (pid = worker, tid = thread id), one per device.
//
// A thread's track shows what it did, one span at a time: `running`, then
// a wait named by its reason (`chan receive`, `select`, `sleep`, …) or by
// what it awaits outside the run (`await rpc_call`), and so on; the ops it
// ran are spans inside `running`, and ops that park end where the wait
// begins, so spans nest. Sends and receives are linked by flow events
// (s on the sender, f on the receiver) with one id per value; selects
// leave an instant event naming the case they took, and panics one naming
// the panic.
//
// Invariants (one worker runs one thread at a time):
//   At most one thread of this worker is `running`; the tracer learns of a
//   thread running from its ops (`running`), and of it stopping from the
//   scheduler (`blocked`), its ops (`awaiting`) or its end (`finished`).
//   Every thread's open span is closed before its next one opens, and at
//   `finish`; an op span open when its thread stops is closed then.
//   Flow ids are unique across workers: the worker's index times 2^32 plus
//   a count.

import type { GreenThread, WaitReason } from "../../scheduler/green_thread.ts";
import type { Panic } from "../../scheduler/panic.ts";
import type { ThreadTracer } from "../../scheduler/thread_tracer.ts";
import { EventLog, INSTANT, SPAN } from "./_event_log.ts";
import { ChannelFlows } from "./channel_flows.ts";
import {
  GPU_TRACK,
  KERNEL_TRACK,
  RPC_TRACK,
  type TraceCategory,
  type TraceEvent,
} from "./trace_event.ts";

/** Options for {@linkcode RunTracer}. */
export interface RunTracerOptions {
  /**
   * The worker whose events this tracer records.
   *
   * @default {0}
   */
  worker?: number;
  /**
   * When the trace began, in ms since the epoch, shared by every worker of
   * the run so that their times line up.
   *
   * @default {now}
   */
  origin?: number;
}

const IDLE = 0;
const RUNNING = 1;
const WAITING = 2;

// What a thread of this worker is doing now, since when.
interface ThreadTrack {
  state: number;
  since: number;
  what: string;
}

/**
 * Records a traced run on one worker. The runtime calls it from the ops
 * (`running`, `opStart`/`opEnd`, `awaiting`, `selected`, and `flows` for
 * what channels carry), the scheduler from parks, wake-ups and ends;
 * `finish` closes what is open and returns the events.
 *
 * @example Usage
 * ```ts
 * import { RunTracer } from "./run_tracer.ts";
 * import { Scheduler } from "../../scheduler/scheduler.ts";
 * import { assert } from "@std/assert";
 *
 * const tracer = new RunTracer();
 * const s = new Scheduler({ seed: 1, tracer });
 * await s.run((main) => {
 *   tracer.running(main);
 *   tracer.opEnd(main, tracer.opStart("print", 0, 0));
 * });
 * const events = tracer.finish();
 * assert(events.some((e) => e.ph === "X" && e.name === "print"));
 * ```
 */
export class RunTracer implements ThreadTracer {
  /** The worker whose events this tracer records. */
  readonly worker: number;
  /** When the trace began, in ms since the epoch. */
  readonly origin: number;
  readonly #log = new EventLog();
  readonly #adopted: TraceEvent[] = [];
  readonly #threads = new Map<GreenThread, ThreadTrack>();
  readonly #shift: number;
  #current: GreenThread | undefined = undefined;
  // The op spans open on the current thread, outermost first: how many,
  // and each one's type, block, index and start.
  #opDepth = 0;
  readonly #opType: string[] = [];
  readonly #opBlock: number[] = [];
  readonly #opIndex: number[] = [];
  readonly #opStart: number[] = [];
  /**
   * Links each send to the receive that took its value (the channel and
   * select ops, and the traced codec of a pooled run's channels, tell it).
   */
  readonly flows: ChannelFlows;

  /**
   * Makes a tracer for one worker of a run.
   *
   * @param options The worker and the run's origin.
   */
  constructor(options: RunTracerOptions = {}) {
    this.worker = options.worker ?? 0;
    const origin = options.origin ?? performance.timeOrigin + performance.now();
    this.origin = origin;
    this.#shift = (performance.timeOrigin - origin) * 1000;
    this.flows = new ChannelFlows(this.worker, this.#log, () => this.now());
  }

  /**
   * The time now, in µs since the run's origin.
   *
   * @returns The time.
   */
  now(): number {
    return performance.now() * 1000 + this.#shift;
  }

  /**
   * A `performance.now()` time of this worker, in µs since the origin.
   *
   * @param ms The time.
   * @returns The trace's time.
   */
  timeOf(ms: number): number {
    return ms * 1000 + this.#shift;
  }

  /**
   * `thread` runs (an op of it starts or resumes): closes its wait, and the
   * running span of any other thread of this worker.
   *
   * @param thread The thread.
   */
  running(thread: GreenThread): void {
    const current = this.#current;
    if (current === thread && this.#trackOf(thread).state === RUNNING) return;
    const now = this.now();
    if (current !== undefined && current !== thread) this.#stop(current, now);
    this.#current = thread;
    this.#open(this.#trackOf(thread), thread, RUNNING, "running", now);
  }

  /**
   * An op of the running thread starts: a span until
   * {@linkcode RunTracer.prototype.opEnd}, or until its thread stops in it.
   * Ops nest (an op that runs a sub-block holds the sub-block's ops).
   *
   * @param type The op's type.
   * @param block The block's index.
   * @param index The op's index in its block.
   * @returns Its depth, for `opEnd`.
   */
  opStart(type: string, block: number, index: number): number {
    const depth = this.#opDepth++;
    this.#opType[depth] = type;
    this.#opBlock[depth] = block;
    this.#opIndex[depth] = index;
    this.#opStart[depth] = this.now();
    return depth;
  }

  /**
   * The op that {@linkcode RunTracer.prototype.opStart} began has returned.
   *
   * @param thread Its thread.
   * @param depth What `opStart` returned.
   */
  opEnd(thread: GreenThread, depth: number): void {
    this.#closeOps(thread, depth, this.now());
  }

  /**
   * `thread` awaits something outside the run (an RPC, a read-back, a
   * file), unless it is blocked already.
   *
   * @param thread The thread.
   * @param what The op it awaits in.
   */
  awaiting(thread: GreenThread, what: string): void {
    const track = this.#trackOf(thread);
    if (track.state === WAITING) return;
    this.#open(track, thread, WAITING, `await ${what}`, this.now());
    if (this.#current === thread) this.#current = undefined;
  }

  /**
   * `thread` parked for `reason` (from the scheduler).
   *
   * @param thread The thread.
   * @param reason Its wait reason.
   */
  blocked(thread: GreenThread, reason: WaitReason): void {
    this.#open(this.#trackOf(thread), thread, WAITING, reason, this.now());
    if (this.#current === thread) this.#current = undefined;
  }

  /**
   * `thread` may run again (from the scheduler): its wait ends.
   *
   * @param thread The thread.
   */
  woken(thread: GreenThread): void {
    this.#open(this.#trackOf(thread), thread, IDLE, "", this.now());
  }

  /**
   * `thread` ended, with `panic` if it panicked (an instant event).
   *
   * @param thread The thread.
   * @param panic Its panic, if any.
   */
  finished(thread: GreenThread, panic: Panic | undefined): void {
    const now = this.now();
    this.#open(this.#trackOf(thread), thread, IDLE, "", now);
    if (this.#current === thread) this.#current = undefined;
    if (panic === undefined) return;
    const name = `panic: ${panic.message}`;
    const row = this.#log.add(
      INSTANT,
      "panic",
      name,
      now,
      0,
      thread.id,
      0,
      0,
      0,
    );
    this.#log.setArgs(row, { message: panic.message, where: panic.where });
  }

  /**
   * `thread`'s select took case `index` (`kind`: recv, send or default).
   *
   * @param thread The thread.
   * @param index The case's index.
   * @param kind The case's kind.
   */
  selected(thread: GreenThread, index: number, kind: string): void {
    const name = `select: case ${index} (${kind})`;
    const ts = this.now();
    const row = this.#log.add(
      INSTANT,
      "select",
      name,
      ts,
      0,
      thread.id,
      0,
      0,
      0,
    );
    this.#log.setArgs(row, { case: index, kind });
  }

  /**
   * A span on a track of its own (`tid`): a GPU dispatch or read-back, or
   * an RPC on its thread's track.
   *
   * @param tid The track: a thread id, or {@linkcode GPU_TRACK}.
   * @param name The span's name.
   * @param cat Its category.
   * @param start When it began (µs, from `now`).
   * @param args Its details.
   */
  span(
    tid: number,
    name: string,
    cat: TraceCategory,
    start: number,
    args: Record<string, unknown>,
  ): void {
    const dur = this.now() - start;
    const row = this.#log.add(SPAN, cat, name, start, dur, tid, 0, 0, 0);
    this.#log.setArgs(row, args);
  }

  /**
   * An instant event on track `tid` (a GPU dispatch recorded).
   *
   * @param tid The track.
   * @param name The event's name.
   * @param cat Its category.
   * @param args Its details.
   */
  instant(
    tid: number,
    name: string,
    cat: TraceCategory,
    args: Record<string, unknown>,
  ): void {
    const row = this.#log.add(INSTANT, cat, name, this.now(), 0, tid, 0, 0, 0);
    this.#log.setArgs(row, args);
  }

  /**
   * The run ended in a deadlock: an instant event on the main thread's
   * track, where the trace then ends.
   *
   * @param message The deadlock's message.
   */
  deadlocked(message: string): void {
    const row = this.#log.add(
      INSTANT,
      "panic",
      message,
      this.now(),
      0,
      1,
      0,
      0,
      0,
    );
    this.#log.setArgs(row, { message });
  }

  /**
   * Adds events another worker recorded (they end up in `finish`'s).
   *
   * @param events The events.
   */
  adopt(events: readonly TraceEvent[]): void {
    for (const e of events) this.#adopted.push(e);
  }

  /**
   * The thread running on this worker now, if the tracer knows it.
   *
   * @returns The thread.
   */
  get current(): GreenThread | undefined {
    return this.#current;
  }

  /**
   * Closes every open span, names the tracks, and returns the events.
   *
   * @returns The events, in the order they were recorded.
   */
  finish(): TraceEvent[] {
    const now = this.now();
    for (const [thread, track] of this.#threads) {
      this.#open(track, thread, IDLE, "", now);
    }
    const pid = this.worker;
    const events = this.#log.toEvents(pid);
    const tids = new Set(events.map((e) => e.tid));
    for (const e of this.#adopted) events.push(e);
    events.push(meta("process_name", pid, 0, { name: `worker ${pid}` }));
    events.push(meta("process_sort_index", pid, 0, { sort_index: pid }));
    for (const thread of this.#threads.keys()) {
      events.push(meta("thread_name", pid, thread.id, {
        name: threadName(thread),
      }));
      events.push(meta("thread_sort_index", pid, thread.id, {
        sort_index: thread.id,
      }));
    }
    if (tids.has(GPU_TRACK)) {
      events.push(meta("thread_name", pid, GPU_TRACK, { name: "GPU" }));
    }
    if (tids.has(KERNEL_TRACK)) {
      const name = "kernels for other workers";
      events.push(meta("thread_name", pid, KERNEL_TRACK, { name }));
    }
    if (tids.has(RPC_TRACK)) {
      events.push(meta("thread_name", pid, RPC_TRACK, { name: "RPC calls" }));
    }
    return events;
  }

  #trackOf(thread: GreenThread): ThreadTrack {
    let track = this.#threads.get(thread);
    if (track === undefined) {
      track = { state: IDLE, since: 0, what: "" };
      this.#threads.set(thread, track);
    }
    return track;
  }

  // Ends `thread`'s current span at `now` and starts the next (IDLE: none).
  #open(
    track: ThreadTrack,
    thread: GreenThread,
    state: number,
    what: string,
    now: number,
  ): void {
    if (track.state === RUNNING) this.#closeOps(thread, 0, now);
    if (track.state !== IDLE) {
      const cat = track.state === RUNNING ? "thread" : "wait";
      const dur = now - track.since;
      this.#log.add(
        SPAN,
        cat,
        track.what,
        track.since,
        dur,
        thread.id,
        0,
        0,
        0,
      );
    }
    track.state = state;
    track.since = now;
    track.what = what;
  }

  #stop(thread: GreenThread, now: number): void {
    const track = this.#trackOf(thread);
    if (track.state === RUNNING) this.#open(track, thread, IDLE, "", now);
  }

  // Closes the open op spans from `depth` in, innermost first.
  #closeOps(thread: GreenThread, depth: number, now: number): void {
    while (this.#opDepth > depth) {
      const d = --this.#opDepth;
      const start = this.#opStart[d];
      const type = this.#opType[d];
      const [block, index] = [this.#opBlock[d], this.#opIndex[d]];
      this.#log.add(
        SPAN,
        "op",
        type,
        start,
        now - start,
        thread.id,
        0,
        block,
        index,
      );
    }
  }
}

function meta(
  name: string,
  pid: number,
  tid: number,
  args: Record<string, unknown>,
): TraceEvent {
  return { name, ph: "M", ts: 0, pid, tid, args };
}

function threadName(thread: GreenThread): string {
  if (thread.id === 1) return "goroutine 1 (main)";
  const at = thread.createdAt;
  return at === undefined
    ? `goroutine ${thread.id}`
    : `goroutine ${thread.id} (${at})`;
}
