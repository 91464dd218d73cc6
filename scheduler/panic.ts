// Failures that end a run: a Panic (Go's runtime panics, with its fixed
// lowercase messages) and a Deadlock (Go's fatal error when every goroutine
// is asleep).

import { currentThread, type GreenThread } from "./green_thread.ts";
import { formatThreadDump, type ThreadInfo } from "./thread_dump.ts";

/** Options for {@linkcode Panic}. */
export interface PanicOptions {
  /**
   * The green thread that panicked.
   *
   * @default {currentThread()}
   */
  thread?: ThreadInfo | undefined;
  /**
   * Where it panicked.
   *
   * @default {the thread's `where` when the panic is made}
   */
  where?: string | undefined;
  /**
   * The error behind the panic, when it wraps one.
   *
   * @default {undefined}
   */
  cause?: unknown;
}

/**
 * A Go-style panic: a fatal error in a green thread that ends its run.
 *
 * Channel misuse panics with Go's messages: `send on closed channel`,
 * `close of closed channel`, `close of nil channel`,
 * `makechan: size out of range`. A green thread that throws anything else
 * ends its run with a Panic wrapping the error as its `cause`.
 *
 * @example Usage
 * ```ts
 * import { makeChannel, Panic, Scheduler } from "./mod.ts";
 * import { assertEquals, assertRejects } from "@std/assert";
 *
 * const s = new Scheduler({ seed: 1 });
 * const panic = await assertRejects(() =>
 *   s.run(() => {
 *     const ch = makeChannel<number>(1);
 *     ch.close();
 *     ch.close();
 *   }), Panic);
 * assertEquals(panic.message, "close of closed channel");
 * assertEquals(panic.thread?.id, 1);
 * ```
 */
export class Panic extends Error {
  /**
   * The green thread that panicked, if it happened on one. A panic made
   * where `currentThread()` cannot see the thread (a scheduler without
   * thread contexts) gets it when it leaves the thread's function.
   */
  readonly thread: ThreadInfo | undefined;
  /** The thread's location when it panicked (`block 0 op 3 channel_send`). */
  readonly where: string | undefined;
  /**
   * A dump of the run's threads (see {@linkcode formatThreadDump}), filled
   * in when this panic ends a run.
   */
  dump = "";

  /**
   * Makes a panic.
   *
   * @param message The panic value, such as `send on closed channel`.
   * @param options Which thread panicked, where, and why.
   */
  constructor(message: string, options?: PanicOptions) {
    super(
      message,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = "Panic";
    this.thread = options?.thread ?? currentThread();
    this.where = options?.where ?? this.thread?.where;
  }

  /**
   * Turns anything a green thread threw into a Panic: a Panic is returned as
   * it is (naming `thread`, and its `where`, if it named no thread yet), an
   * `Error` gives `"<name>: <message>"`, anything else its string.
   *
   * @param error The thrown value.
   * @param thread The thread it was thrown from.
   * @returns A Panic carrying `error` as its cause.
   *
   * @example Usage
   * ```ts
   * import { Panic } from "./mod.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const p = Panic.from(new TypeError("x is not a function"), undefined);
   * assertEquals(p.message, "TypeError: x is not a function");
   * assertEquals(Panic.from(p, undefined), p);
   * ```
   */
  static from(error: unknown, thread: GreenThread | undefined): Panic {
    if (error instanceof Panic) {
      if (error.thread === undefined && thread !== undefined) {
        const p = error as { thread: ThreadInfo; where: string | undefined };
        p.thread = thread;
        p.where ??= thread.where;
      }
      return error;
    }
    const message = error instanceof Error
      ? `${error.name}: ${error.message}`
      : String(error);
    return new Panic(message, { thread, cause: error });
  }
}

/**
 * Every green thread of a run is blocked on channels, selects or sleeps,
 * with no timer, hold or abortable operation that could wake one: Go's
 * `fatal error: all goroutines are asleep - deadlock!`.
 *
 * @example Usage
 * ```ts
 * import { Deadlock, makeChannel, Scheduler } from "./mod.ts";
 * import { assertEquals, assertRejects } from "@std/assert";
 *
 * const s = new Scheduler({ seed: 1 });
 * const err = await assertRejects(
 *   () => s.run(() => makeChannel<number>().recv()),
 *   Deadlock,
 * );
 * assertEquals(err.message, "fatal error: all goroutines are asleep - deadlock!");
 * assertEquals(err.dump, "goroutine 1 [chan receive]:");
 * ```
 */
export class Deadlock extends Error {
  /** The threads that were alive, in id order. */
  readonly threads: readonly ThreadInfo[];
  /** Their dump, from {@linkcode formatThreadDump}. */
  readonly dump: string;

  /**
   * Makes the deadlock report.
   *
   * @param threads The live threads, in id order.
   */
  constructor(threads: Iterable<ThreadInfo>) {
    super("fatal error: all goroutines are asleep - deadlock!");
    this.name = "Deadlock";
    this.threads = [...threads];
    this.dump = formatThreadDump(this.threads);
  }
}
