// Channels with Go semantics for green threads on one worker.
//
// Invariants (hold whenever no channel method is on the stack):
//   At least one of #recvq and #sendq is empty, except when one select
//   parks on both sides of the same unbuffered channel.
//   Buffered: #count > 0 implies #recvq is empty;
//             #count < #cap implies #sendq is empty.
//   Closed: both queues are empty (close resumes every waiter) and stay so.
//   No queue holds a stale waiter: completing a select case unlinks the
//   select's other waiters at once (see _waiter.ts).
//   The waker completes the operation; a woken thread never re-checks.
//
// The ring #buf grows by doubling up to #cap, so a huge capacity costs
// memory only when used; slots are cleared as they are read, for the GC.

import type { GreenThread } from "./green_thread.ts";
import { Panic } from "./panic.ts";
import type { Resumer } from "./resumer.ts";
import {
  complete,
  completeWithPanic,
  park,
  RECV,
  RECV_OK,
  resume,
  SEND,
  type Waiter,
  Waiter as WaiterClass,
  waiterThread,
  WaitQueue,
} from "./_waiter.ts";
import { lendChannelSelect } from "./_channel_select.ts";

/** Options for {@linkcode Channel}. */
export interface ChannelOptions<T> {
  /**
   * The value a receive yields once the channel is closed and drained.
   *
   * @default {undefined}
   */
  zero?: T;
}

/** Options for a blocking channel operation. */
export interface ChannelOpOptions {
  /**
   * Abandons the operation if it is still waiting when the signal aborts:
   * its waiter is removed and the promise rejects with the signal's reason.
   * An operation that can complete at once ignores the signal.
   *
   * @default {undefined}
   */
  signal?: AbortSignal;
  /**
   * The green thread making the operation: counted as blocked while it
   * waits, and named by its panic. Required for that on a scheduler made
   * with `threadContext: false`; elsewhere it saves looking the thread up.
   * One options object per thread can serve all its operations.
   *
   * @default {currentThread()}
   */
  thread?: GreenThread;
  /**
   * For runtimes that keep their own continuations: when the operation
   * must wait, it returns `PARKED` and hands its outcome to this
   * resumer instead of settling a promise (see resumer.ts).
   *
   * @default {undefined}
   */
  resumer?: Resumer;
}

/** A receive's value and whether it came from a send (`ok`) or a close. */
export interface RecvResult<T> {
  /** The value sent, or the channel's zero value when `ok` is false. */
  value: T;
  /** False when the channel is closed and drained. */
  ok: boolean;
}

/** The outcome of {@linkcode Channel.prototype.tryRecv}. */
export type TryRecvResult<T> =
  | { state: "ok"; value: T }
  | { state: "empty" }
  | { state: "closed"; value: T };

const EMPTY: { state: "empty" } = Object.freeze({ state: "empty" });
// Returned by #poll when the receive must park; never a channel value.
const MUST_PARK: unique symbol = Symbol("must park");

/**
 * A Go channel: a typed conduit between green threads, unbuffered
 * (rendezvous) or buffered (a FIFO ring of `capacity` values).
 *
 * - Operations complete synchronously when they can and return a promise
 *   only when they must wait, so check before awaiting in hot loops
 *   (`const p = ch.send(v); if (p) await p;`). Channel values must not be
 *   `Promise`s themselves: wrap one in an object to send it.
 * - A receiver woken by a sender gets the value handed over directly.
 * - Sending on a closed channel panics `send on closed channel`, also for a
 *   sender already waiting when the close happens; closing twice panics
 *   `close of closed channel`.
 * - Receiving from a closed channel yields the buffered values, then the
 *   zero value with `ok` false, at once, forever.
 * - The nil channel is `null`: see {@linkcode closeChannel},
 *   `blockForever()` and `select()`.
 *
 * @typeParam T The type of the values carried.
 *
 * @example Usage
 * ```ts
 * import { Channel, Scheduler } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const s = new Scheduler({ seed: 1 });
 * await s.run(async () => {
 *   const ch = new Channel<number>(0, { zero: -1 });
 *   s.go(async () => {
 *     for (let i = 0; i < 3; i++) await ch.send(i);
 *     ch.close();
 *   });
 *   const got: number[] = [];
 *   for await (const v of ch) got.push(v);
 *   assertEquals(got, [0, 1, 2]);
 *   assertEquals(await ch.recvOk(), { value: -1, ok: false });
 * });
 * ```
 */
export class Channel<T> {
  #cap: number;
  #buf: (T | undefined)[];
  #head = 0;
  #count = 0;
  #closed = false;
  #zero: T;
  #recvq = new WaitQueue();
  #sendq = new WaitQueue();
  // Whether the last #poll took a sent value (true) or a close's zero.
  #polledOk = true;

  /**
   * Makes a channel.
   *
   * @param capacity The buffer size; 0 makes an unbuffered channel.
   * @param options The zero value.
   * @throws {Panic} `makechan: size out of range` if `capacity` is not an
   * integer in [0, 2^32).
   */
  constructor(capacity = 0, options?: ChannelOptions<T>) {
    if (!Number.isInteger(capacity) || capacity < 0 || capacity >= 2 ** 32) {
      throw new Panic("makechan: size out of range");
    }
    this.#cap = capacity;
    this.#buf = new Array(Math.min(capacity, 1024)).fill(undefined);
    this.#zero = options?.zero as T;
  }

  /**
   * The number of buffered values.
   *
   * @returns How many values wait in the buffer.
   */
  get len(): number {
    return this.#count;
  }

  /**
   * The buffer capacity.
   *
   * @returns The capacity given at construction.
   */
  get cap(): number {
    return this.#cap;
  }

  /**
   * Whether the channel has been closed.
   *
   * @returns True after `close()`.
   */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Sends a value, waiting for a receiver or for buffer space if needed.
   *
   * @param value The value to send.
   * @param options An abort signal and the sending thread.
   * @returns `undefined` when the send completed at once, else a promise
   * that settles when it completes.
   * @throws {Panic} `send on closed channel`, thrown at once or as the
   * promise's rejection if the channel is closed while the sender waits.
   *
   * @example Usage
   * ```ts
   * import { Channel } from "./mod.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const ch = new Channel<string>(1);
   * assertEquals(ch.send("a"), undefined); // buffered: no wait
   * assertEquals(ch.recv(), "a");
   * ```
   */
  send(value: T, options?: ChannelOpOptions): void | Promise<void> {
    if (this.#offer(value, options?.thread)) return;
    // Park: queue a waiter; the receiver that dequeues it completes the send.
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return park(
      new WaiterClass(SEND, value),
      this.#sendq,
      "chan send",
      options,
    ) as Promise<void>;
  }

  /**
   * Receives a value, waiting for a sender if needed.
   *
   * @param options An abort signal and the receiving thread.
   * @returns The value (the zero value once closed and drained) when it is
   * available at once, else a promise of it.
   *
   * @example Usage
   * ```ts
   * import { Channel } from "./mod.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const ch = new Channel<number>(2, { zero: 0 });
   * ch.send(5);
   * ch.close();
   * assertEquals(ch.recv(), 5);
   * assertEquals(ch.recv(), 0);
   * ```
   */
  recv(options?: ChannelOpOptions): T | Promise<T> {
    const v = this.#poll();
    if (v !== MUST_PARK) return v;
    return this.#parkRecv(RECV, options) as Promise<T>;
  }

  /**
   * Receives a value and whether it was sent (`ok`) rather than produced
   * by a close (Go's `v, ok := <-ch`).
   *
   * @param options An abort signal and the receiving thread.
   * @returns The result when available at once, else a promise of it.
   *
   * @example Usage
   * ```ts
   * import { Channel } from "./mod.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const ch = new Channel<number>(1, { zero: 0 });
   * ch.send(3);
   * assertEquals(ch.recvOk(), { value: 3, ok: true });
   * ch.close();
   * assertEquals(ch.recvOk(), { value: 0, ok: false });
   * ```
   */
  recvOk(options?: ChannelOpOptions): RecvResult<T> | Promise<RecvResult<T>> {
    const v = this.#poll();
    if (v !== MUST_PARK) return { value: v, ok: this.#polledOk };
    return this.#parkRecv(RECV_OK, options) as Promise<RecvResult<T>>;
  }

  /**
   * Sends only if that completes at once (Go's `select` with a send case
   * and a default).
   *
   * @param value The value to send.
   * @returns True if sent, false if the send would have to wait.
   * @throws {Panic} `send on closed channel`.
   *
   * @example Usage
   * ```ts
   * import { Channel } from "./mod.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const ch = new Channel<number>(1);
   * assertEquals(ch.trySend(1), true);
   * assertEquals(ch.trySend(2), false);
   * ```
   */
  trySend(value: T): boolean {
    return this.#offer(value, undefined);
  }

  /**
   * Receives only if that completes at once.
   *
   * @returns `{ state: "ok", value }`, `{ state: "empty" }` when a receive
   * would have to wait, or `{ state: "closed", value: zero }`.
   *
   * @example Usage
   * ```ts
   * import { Channel } from "./mod.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const ch = new Channel<number>(1, { zero: 0 });
   * assertEquals(ch.tryRecv(), { state: "empty" });
   * ch.send(4);
   * assertEquals(ch.tryRecv(), { state: "ok", value: 4 });
   * ch.close();
   * assertEquals(ch.tryRecv(), { state: "closed", value: 0 });
   * ```
   */
  tryRecv(): TryRecvResult<T> {
    const v = this.#poll();
    if (v === MUST_PARK) return EMPTY;
    return this.#polledOk
      ? { state: "ok", value: v }
      : { state: "closed", value: v };
  }

  /**
   * Closes the channel. Waiting receivers get the zero value with `ok`
   * false; waiting senders panic `send on closed channel`.
   *
   * @throws {Panic} `close of closed channel`.
   *
   * @example Usage
   * ```ts
   * import { Channel } from "./mod.ts";
   * import { assert } from "@std/assert";
   *
   * const ch = new Channel<number>();
   * ch.close();
   * assert(ch.closed);
   * ```
   */
  close(): void {
    // Closed already: panic.
    if (this.#closed) throw new Panic("close of closed channel");
    this.#closed = true;
    // Gather every waiter and complete it: receivers get the zero value,
    // senders a panic. Completing a select case may unlink other waiters
    // of the same select from these queues, so dequeue one at a time.
    const woken: Waiter[] = [];
    while (this.#recvq.head !== null) {
      const w = this.#recvq.shift();
      complete(w, this.#zero, false);
      woken.push(w);
    }
    while (this.#sendq.head !== null) {
      const w = this.#sendq.shift();
      completeWithPanic(
        w,
        new Panic("send on closed channel", { thread: waiterThread(w) }),
      );
      woken.push(w);
    }
    // Resume them only now that the channel's state is final.
    for (const w of woken) resume(w);
  }

  /**
   * Iterates over received values until the channel is closed and drained
   * (Go's `for v := range ch`).
   *
   * @returns An async iterator of the values.
   *
   * @example Usage
   * ```ts
   * import { Channel } from "./mod.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const ch = new Channel<number>(3);
   * ch.send(1);
   * ch.send(2);
   * ch.close();
   * const got: number[] = [];
   * for await (const v of ch) got.push(v);
   * assertEquals(got, [1, 2]);
   * ```
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    while (true) {
      let r = this.recvOk();
      if (r instanceof Promise) r = await r;
      if (!r.ok) return;
      yield r.value;
    }
  }

  // The send ladder, short of parking. Returns false when the send must wait.
  #offer(value: T, thread: GreenThread | undefined): boolean {
    // Closed: panic.
    if (this.#closed) throw new Panic("send on closed channel", { thread });
    // A receiver is waiting (so the buffer is empty): hand the value over
    // directly, skipping the buffer.
    if (this.#recvq.head !== null) {
      const w = this.#recvq.shift();
      complete(w, value, true);
      resume(w);
      return true;
    }
    // Buffer space: append to the ring.
    if (this.#count < this.#cap) {
      if (this.#count === this.#buf.length) this.#grow();
      const buf = this.#buf;
      let i = this.#head + this.#count;
      if (i >= buf.length) i -= buf.length;
      buf[i] = value;
      this.#count++;
      return true;
    }
    return false;
  }

  // The receive ladder, short of parking. Returns MUST_PARK when the receive
  // must wait; otherwise the value, with #polledOk telling sent from closed.
  #poll(): T | typeof MUST_PARK {
    // A sender is waiting. Unbuffered: take its value directly. Buffered
    // (so the buffer is full): take the head, put the sender's value at the
    // tail, which is the slot just freed. Either way its send is complete.
    if (this.#sendq.head !== null) {
      const w = this.#sendq.shift();
      let v: T;
      if (this.#cap === 0) {
        v = w.value as T;
      } else {
        const buf = this.#buf;
        const h = this.#head;
        v = buf[h] as T;
        buf[h] = w.value as T;
        this.#head = h + 1 === buf.length ? 0 : h + 1;
      }
      this.#polledOk = true;
      complete(w, undefined, true);
      resume(w);
      return v;
    }
    // A buffered value: take the head of the ring.
    if (this.#count > 0) {
      const buf = this.#buf;
      const h = this.#head;
      const v = buf[h] as T;
      buf[h] = undefined;
      this.#head = h + 1 === buf.length ? 0 : h + 1;
      this.#count--;
      this.#polledOk = true;
      return v;
    }
    // Closed and drained: the zero value, not ok.
    if (this.#closed) {
      this.#polledOk = false;
      return this.#zero;
    }
    return MUST_PARK;
  }

  // Park: queue a waiter; the sender or closer that dequeues it completes
  // the receive.
  #parkRecv(
    kind: number,
    options: ChannelOpOptions | undefined,
  ): Promise<unknown> {
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return park(
      new WaiterClass(kind, undefined),
      this.#recvq,
      "chan receive",
      options,
    );
  }

  // Precondition: the ring is full and shorter than #cap.
  #grow(): void {
    const old = this.#buf;
    const n = Math.min(old.length * 2, this.#cap);
    const buf = new Array<T | undefined>(n).fill(undefined);
    for (let i = 0; i < this.#count; i++) {
      buf[i] = old[(this.#head + i) % old.length];
    }
    this.#buf = buf;
    this.#head = 0;
  }

  /**
   * Whether a receive would complete at once: a value is buffered, a
   * sender is waiting, or the channel is closed.
   *
   * @returns True when `recv()` would not wait.
   *
   * @example Usage
   * ```ts
   * import { Channel } from "./mod.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const ch = new Channel<number>(1);
   * assertEquals(ch.canRecv(), false);
   * ch.trySend(1);
   * assertEquals(ch.canRecv(), true);
   * ```
   */
  canRecv(): boolean {
    return this.#sendq.head !== null || this.#count > 0 || this.#closed;
  }

  /**
   * Whether a send would complete (or panic) at once: a receiver is
   * waiting, the buffer has room, or the channel is closed.
   *
   * @returns True when `send()` would not wait.
   *
   * @example Usage
   * ```ts
   * import { Channel } from "./mod.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const ch = new Channel<number>(1);
   * assertEquals(ch.canSend(), true);
   * ch.trySend(1);
   * assertEquals(ch.canSend(), false);
   * ```
   */
  canSend(): boolean {
    return this.#closed || this.#recvq.head !== null || this.#count < this.#cap;
  }

  // Select's side of a channel, which _channel_select.ts calls (see there).
  static {
    lendChannelSelect({
      recvInto(ch, out) {
        out.value = ch.#poll();
        out.ok = ch.#polledOk;
      },
      sendNow(ch, value, thread) {
        ch.#offer(value, thread);
      },
      receiversOf: (ch) => ch.#recvq,
      sendersOf: (ch) => ch.#sendq,
    });
  }
}

/**
 * Makes a channel: `makeChannel<T>(n)` is Go's `make(chan T, n)`.
 *
 * @typeParam T The type of the values carried.
 * @param capacity The buffer size; 0 makes an unbuffered channel.
 * @param options The zero value.
 * @returns A new channel.
 * @throws {Panic} `makechan: size out of range` for a negative or
 * fractional capacity.
 *
 * @example Usage
 * ```ts
 * import { makeChannel } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const ch = makeChannel<number>(4);
 * assertEquals([ch.len, ch.cap], [0, 4]);
 * ```
 */
export function makeChannel<T>(
  capacity = 0,
  options?: ChannelOptions<T>,
): Channel<T> {
  return new Channel<T>(capacity, options);
}

/**
 * Closes a channel, or panics on the nil channel (`null`) as Go does.
 *
 * @param ch The channel, or `null` for the nil channel.
 * @throws {Panic} `close of nil channel`, or `close of closed channel`.
 *
 * @example Usage
 * ```ts
 * import { closeChannel, Panic } from "./mod.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * const p = assertThrows(() => closeChannel(null), Panic);
 * assertEquals(p.message, "close of nil channel");
 * ```
 */
export function closeChannel(ch: Channel<unknown> | null): void {
  if (ch === null) throw new Panic("close of nil channel");
  ch.close();
}
