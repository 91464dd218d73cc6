/**
 * One worker's part in running a program on a pool of workers: where its
 * `go` and `parallel_for` ops place new green threads, how a thread is
 * started on another worker with copies of what it reads, the shared
 * channels and arrays every worker sees, and the print log that keeps the
 * run's output in one order.
 *
 * In a pooled run every channel and tensor array lives in the shared heap,
 * whether or not another worker ever reaches it: a select may then mix any
 * channels, and placement need not prove where a value goes.
 *
 * Spawns on other workers (a `go`'s thread, a `parallel_for`'s iterations)
 * are _pool_spawns.ts's; the print log is _print_log.ts.
 *
 * @module
 */
import { type ScheduleGate, TURN_MESSAGE } from "../core/schedule_gate.ts";
import { Spinner } from "../../scheduler/shared/_spinner.ts";
import type { Device } from "../../kernels/device.ts";
import type { DType } from "../../kernels/dtype.ts";
import { Tensor } from "../../kernels/tensor.ts";
import type { GreenThread } from "../../scheduler/green_thread.ts";
import type { PoolMember } from "../../scheduler/shared/pool_member.ts";
import type { SharedChannel } from "../../scheduler/shared/shared_channel.ts";
import { schedulerRun } from "../../scheduler/_thread_control.ts";
import { codeOfDType } from "../core/dtype_codes.ts";
import type { PreparedProgram } from "../exec/prepare.ts";
import type { Scope } from "../core/scope.ts";
import type { PoolServices } from "../core/_pool_services.ts";
import type { RunServices } from "../core/thread_context.ts";
import type { TensorArray } from "../core/value.ts";
import { ParallelGemm } from "./parallel_gemm.ts";
import { ParallelKernels } from "./parallel_kernels.ts";
import { placeProgram, type ProgramPlacement } from "../check/placement.ts";
import { RowSplit } from "./row_split.ts";
import { SharedStorage } from "./shared_storage.ts";
import { SharedTensorArray } from "./shared_tensor_array.ts";
import { channelCodec, quietly } from "./traced_codec.ts";
import { KERNEL_TRACK } from "../core/trace_event.ts";
import { createSharedChannel } from "../../scheduler/shared/_channel_handle.ts";
import { PoolSpawns } from "./_pool_spawns.ts";
import {
  appendLine,
  hasLines,
  lineOf,
  nextLine,
  takeLines,
} from "./_print_log.ts";

/** The message that tells the main thread to print the log. */
const PRINT_LOG = 0;

const TRUE = Tensor.fromArray([true], "bool", [1]);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * This worker's part of a pooled run.
 */
export class PoolRun implements PoolServices {
  /** This worker's link to the others. */
  readonly member: PoolMember;
  /** How many workers the run has. */
  readonly workers: number;
  readonly #spawns: PoolSpawns;
  readonly #placement: ProgramPlacement;
  readonly #split: RowSplit;
  readonly #gemm: ParallelGemm;
  readonly #kernels: ParallelKernels;
  readonly #storage: SharedStorage;
  #services: RunServices | undefined;
  #write: (line: string) => void;
  #placed = 0;

  /**
   * Joins a run.
   *
   * @param member This worker's link to the others.
   * @param workers How many workers the run has.
   * @param prepared The program, prepared on this worker.
   * @param write Where the main thread writes printed lines.
   */
  constructor(
    member: PoolMember,
    workers: number,
    prepared: PreparedProgram,
    write: (line: string) => void,
  ) {
    this.member = member;
    this.workers = workers;
    this.#write = write;
    this.#spawns = new PoolSpawns(
      member,
      workers,
      prepared,
      () => this.#services!,
    );
    this.#placement = placeProgram(prepared.desc);
    this.#storage = SharedStorage.install(member);
    this.#split = new RowSplit(member, workers);
    this.#gemm = new ParallelGemm(member, this.#split);
    this.#kernels = new ParallelKernels(member, this.#split);
  }

  /** Ends this worker's part: large tensors get private storage again. */
  close(): void {
    this.#spawns.stop();
    this.#storage.uninstall();
  }

  /**
   * The services this worker's threads run with (set once, before any
   * thread runs).
   *
   * @param services The services.
   */
  attach(services: RunServices): void {
    this.#services = services;
  }

  // Channels and arrays: shared, always (see the top of this file).

  /**
   * A new shared channel of tensors.
   *
   * @param capacity The buffer size.
   * @param dtype The element type; `undefined` carries any tensor.
   * @returns The channel.
   */
  makeChannel(capacity: number, dtype?: DType): SharedChannel<Tensor> {
    return quietly(() =>
      createSharedChannel(
        this.member,
        capacity,
        channelCodec(),
        Tensor.zeros([1], dtype ?? "float32"),
        dtype === undefined ? 0 : codeOfDType(dtype) + 1,
      )
    );
  }

  /**
   * A shared channel that delivers `true` once, `ms` from now (the
   * `channel_after` op); the timer is pending work of this worker.
   *
   * @param ms The delay.
   * @returns The channel.
   */
  after(ms: number): SharedChannel<Tensor> {
    const ch = this.makeChannel(1, "bool");
    const run = schedulerRun(this.member.scheduler);
    if (!run.ended) {
      run.startTimer(Math.max(0, ms), () => ch.trySend(TRUE));
    }
    return ch;
  }

  /**
   * Whether a thread of `block` (a go or parallel_for body) may run on
   * another worker: the static placement rule.
   *
   * @param block The block.
   * @returns True if movable.
   */
  movable(block: number): boolean {
    return this.#placement.blocks.get(block)?.movable ?? false;
  }

  /**
   * A new shared tensor array.
   *
   * @returns The array.
   */
  newArray(): TensorArray {
    return SharedTensorArray.create(this.member);
  }

  // Output.

  /**
   * Prints a line in the run's order: the main thread prints what workers
   * logged before, then its own line; a worker logs the line and tells the
   * main thread.
   *
   * @param line The line.
   */
  print(line: string): void {
    if (this.member.self === 0) {
      this.printLog();
      return this.#write(line);
    }
    const m = this.member;
    const bytes = encoder.encode(line);
    m.lock();
    appendLine(m.heap, bytes);
    m.post(0, PRINT_LOG);
    m.unlock();
  }

  /** On the main thread: prints every line the workers logged so far. */
  printLog(): void {
    const m = this.member;
    const heap = m.heap;
    if (!hasLines(heap)) return;
    m.lock();
    let entry = takeLines(heap);
    m.unlock();
    while (entry !== 0) {
      const next = nextLine(heap, entry); // before the free reuses the word
      this.#write(decoder.decode(lineOf(heap, entry)));
      m.freeDataLater(entry);
      entry = next;
    }
  }

  /**
   * Handles a message another worker posted here: a spawn, or the log.
   *
   * @param message The message.
   */
  onMessage(message: number): void {
    if (message === PRINT_LOG) return this.printLog();
    if (message === TURN_MESSAGE) return this.#turn();
    if (RowSplit.isTicket(message)) return this.#help(message);
    this.#spawns.start(message);
  }

  // A replay's cursor moved on another worker: this worker's threads that
  // wait for their turn look again. The poster counted the message as
  // activity (ScheduleGate.wakeWorkers); it ends here.
  #turn(): void {
    this.#services?.schedule?.turnMessage();
    this.member.changed(-1);
  }

  /**
   * Lets a recorded or replayed run's gate wake other workers' threads
   * that wait for their turn: a turn message to each, counted as activity
   * until it is handled, so the run never looks deadlocked meanwhile. A
   * recording's gate also learns, under the heap's lock, the order of
   * every attempt on a shared channel (PoolMember.attemptHook).
   *
   * @param gate This worker's gate.
   */
  wakeTurnsWith(gate: ScheduleGate): void {
    const m = this.member;
    if (gate.mode === "record") m.attemptHook = gate.attempted;
    gate.spinner = new Spinner(m.heap.i32);
    gate.wakeWorkers = (workers) => {
      m.lock();
      for (const w of workers) {
        m.changed(1);
        m.post(w, TURN_MESSAGE);
      }
      m.unlock();
    };
  }

  // Helps with another worker's split kernel; a traced run shows it as a
  // span on this worker's kernel track, as no thread of its runs it.
  #help(message: number): void {
    const tracer = this.#services?.tracer;
    if (tracer === undefined) return void this.#split.help(message);
    const start = tracer.now();
    const rows = this.#split.help(message);
    if (rows === 0) return; // the caller had computed them all
    tracer.span(KERNEL_TRACK, "rows of a split kernel", "op", start, { rows });
  }

  /**
   * `base` with its large matrix products, elementwise operators, softmax
   * and row-wise reductions split over the pool's workers.
   *
   * @param base The device the run was given.
   * @returns The device this worker's threads use.
   */
  device(base: Device): Device {
    const k = base.kernels;
    const gemmFloat32 = this.#gemm.gemm;
    return {
      name: base.name,
      kernels: this.#kernels.wrap({
        ...k,
        matmul: (x, y, options) => k.matmul(x, y, { ...options, gemmFloat32 }),
        mul2d: (x, y, xCols, yCols) =>
          k.mul2d(x, y, xCols, yCols, { gemmFloat32 }),
      }),
    };
  }

  // Placement.

  /**
   * Where a thread of `block` spawned now should run: round robin over the
   * workers, this one included.
   *
   * @returns A worker index.
   */
  nextWorker(): number {
    return (this.member.self + 1 + this.#placed++) % this.workers;
  }

  /**
   * Starts a thread of `block` on `worker`, with the values of its
   * captures read from `scope` (the spawning op's scope).
   *
   * @param worker The target worker.
   * @param block The block.
   * @param scope The spawning op's scope.
   * @param parent The spawning thread.
   */
  spawn(
    worker: number,
    block: number,
    scope: Scope,
    parent: GreenThread,
  ): void {
    this.#spawns.spawn(worker, block, scope, parent);
  }

  /**
   * Runs `n` iterations of `block` on whichever workers are free to take
   * them, this one included, and waits for them all (_pool_spawns.ts).
   *
   * @param block The body.
   * @param n How many iterations (1 and up).
   * @param scope The parallel_for's scope.
   * @param parent The parallel_for's thread.
   * @returns `undefined` when they all have ended already, else a promise.
   */
  parallelFor(
    block: number,
    n: number,
    scope: Scope,
    parent: GreenThread,
  ): void | Promise<void> {
    return this.#spawns.parallelFor(block, n, scope, parent);
  }
}
