// Channels that green threads on several workers share, with the same
// semantics as channel.ts: direct hand-off, FIFO buffers, Go's panics, the
// zero value after close. The state lives in the run's shared heap (see
// _records.ts for the layout).
//
// Two paths. While nobody waits on a buffered channel, its senders and
// receivers use its ring without the heap's lock (_ring.ts): a stream
// between two workers costs a few shared cache lines per value and no
// allocation. An unbuffered channel's receiver that polls waits in a
// rendezvous slot, where a sender completes it without the lock
// (_rendezvous.ts). Everything else (waiting, hand-off to a queued waiter,
// close, select) is one critical section under the heap's lock, with the
// ring or the slot frozen, so the ladders below read as channel.ts's do.
//
// Values travel in value areas (_values.ts), inline when small. A
// channel's handle on a worker is a small object naming the record;
// handles of one channel on different workers are different objects, so
// compare channels by their record (`channelRecord()`), not with `===`.
//
// Invariants (lock held, ring frozen), as in channel.ts:
//   At least one of the receive and send queues is empty, except when one
//   select parks on both sides of the same unbuffered channel.
//   Buffered: a value in the ring implies no parked receiver; a free slot
//   implies no parked sender. Closed: both queues are empty and stay so.
//
// A record lives while anything names it (see _channel_handle.ts, which
// makes records, opens handles on them and counts the holds): a handle
// holds its record until it is collected.

import type { GreenThread } from "../green_thread.ts";
import type { Resumer } from "../resumer.ts";
import { Panic } from "../panic.ts";
import type { RecvResult } from "../channel.ts";
import {
  closeFrozen,
  COMPLETED,
  MUST_WAIT,
  offerFrozen,
  pollFrozen,
  WAS_CLOSED,
} from "./_ladders.ts";
import { waitOn } from "./_parking.ts";
import { freezeSlot, MISSED, receiveBySlot, thawSlot } from "./_rendezvous.ts";
import {
  C_CAP,
  C_CLOSED,
  C_SLOT,
  C_TAG,
  C_ZERO,
  RECV,
  SEND,
} from "./_records.ts";
import {
  canPushHint,
  canTakeHint,
  FAST_BLOCKED,
  FAST_DONE,
  freeze,
  frozenCount,
  thaw,
} from "./_ring.ts";
import { discardValue, encode, encodeValue, takeValue } from "./_values.ts";
import {
  lendChannelHandle,
  releaseChannel,
  retainChannel,
} from "./_channel_handle.ts";
import type { PoolMember } from "./pool_member.ts";
import type { SharedCodec } from "./shared_codec.ts";
import { Spinner } from "./_spinner.ts";
import { type LockFreeWasm, lockFreeWasm } from "./_lock_free_wasm.ts";

export { encode };
export type { SharedCodec };

// What a handle's finalizer needs to let go of its hold.
interface Hold {
  readonly member: PoolMember;
  readonly off: number;
  readonly codec: SharedCodec<unknown>;
}

const collected = new FinalizationRegistry<Hold>((hold) =>
  releaseChannel(hold.member, hold.off, hold.codec)
);

/** Options of shared channel operations. */
export interface SharedOpOptions {
  /**
   * The green thread making the operation; counted as blocked while it
   * waits.
   *
   * @default {undefined}
   */
  thread?: GreenThread;
  /**
   * For runtimes that keep their own continuations: an operation that must
   * wait returns `PARKED` and hands its outcome to this resumer instead of
   * settling a promise (see resumer.ts).
   *
   * @default {undefined}
   */
  resumer?: Resumer;
}

/**
 * A channel whose state lives in a run's shared heap, usable from every
 * worker of the run: a program's channels are these when it runs on a pool
 * of workers. Its operations behave as `Channel`'s do. Channels
 * are made by the pool, never constructed directly; this example makes one
 * by hand, as the pool does.
 *
 * @typeParam T The values carried.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { createSharedChannel } from "./_channel_handle.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const scheduler = new Scheduler({ seed: 1, threadContext: false });
 * const member = new PoolMember(heap, 0, scheduler);
 * const codec = {
 *   byteLength: () => 8,
 *   write: (h: SharedHeap, off: number, v: number) => void (h.f64[off >> 3] = v),
 *   read: (h: SharedHeap, off: number) => h.f64[off >> 3],
 * };
 * await scheduler.run(async (thread) => {
 *   const ch = createSharedChannel(member, 2, codec, 0);
 *   ch.send(1.5, { thread });
 *   ch.close();
 *   assertEquals(await ch.recvOk({ thread }), { value: 1.5, ok: true });
 *   assertEquals(await ch.recvOk({ thread }), { value: 0, ok: false });
 *   member.close();
 * });
 * ```
 */
export class SharedChannel<T> {
  // The worker this handle belongs to.
  readonly #member: PoolMember;
  // The channel's record in the heap, and its index in heap.i32.
  readonly #off: number;
  readonly #c: number;
  // How values become bytes.
  readonly #codec: SharedCodec<T>;
  // Whether the channel has a buffer (a ring) rather than a slot.
  readonly #buffered: boolean;
  // How long this worker's threads poll this channel before they park
  // (_spinner.ts): each channel's peers answer at their own pace.
  readonly #spinner: Spinner;
  // The lock-free fast paths (_lock_free_wasm.ts), looked up once.
  readonly #fast: LockFreeWasm;
  // The polls of #pushNow and #takeNow, made once.
  readonly #canPush = () => canPushHint(this.#member.heap, this.#c);
  readonly #canTake = () => canTakeHint(this.#member.heap, this.#c);
  readonly #slotUsed = () =>
    Atomics.load(this.#member.heap.i32, this.#c + C_SLOT) !== 0;

  // A handle on an existing channel record (openSharedChannel).
  private constructor(
    member: PoolMember,
    off: number,
    codec: SharedCodec<T>,
  ) {
    this.#member = member;
    this.#off = off;
    this.#codec = codec;
    this.#c = off >> 2;
    this.#buffered = member.heap.i32[this.#c + C_CAP] > 0;
    this.#spinner = new Spinner(member.heap.i32);
    this.#fast = lockFreeWasm(member.heap);
    retainChannel(member, off);
    collected.register(this, { member, off, codec } as Hold);
  }

  /**
   * The buffer capacity.
   *
   * @returns The capacity.
   */
  get cap(): number {
    return this.#member.heap.i32[this.#c + C_CAP];
  }

  /**
   * The number of buffered values (exact when read, which takes the lock).
   *
   * @returns The count.
   */
  get len(): number {
    if (!this.#buffered) return 0;
    const m = this.#member;
    m.lock();
    this.#freeze();
    const count = frozenCount(m.heap, this.#c);
    this.#thaw();
    m.unlock();
    return count;
  }

  /**
   * Whether the channel has been closed (a snapshot).
   *
   * @returns True after `close()`.
   */
  get closed(): boolean {
    return Atomics.load(this.#member.heap.i32, this.#c + C_CLOSED) !== 0;
  }

  /**
   * Sends a value, waiting for a receiver or buffer space if needed.
   *
   * @param value The value.
   * @param options The sending thread.
   * @returns `undefined` when the send completed at once, else a promise.
   * @throws {Panic} `send on closed channel`.
   */
  send(value: T, options?: SharedOpOptions): void | Promise<void> {
    const m = this.#member;
    encodeValue(m, this.#codec, value, m.scratch, false);
    // Nobody waits on the ring and it has room, or a receiver waits in the
    // rendezvous slot: no lock (unless a recording orders attempts).
    if (
      m.attemptHook === undefined &&
      (this.#buffered ? this.#pushNow(true) : this.#handOffNow())
    ) return;
    // Else the ladder, under the lock; then, if it must, wait.
    m.lock();
    this.#freeze();
    this.#noteAttempt();
    const status = offerFrozen(this, m.scratch);
    if (status === MUST_WAIT) {
      return waitOn(
        this,
        SEND,
        options?.thread,
        false,
        options?.resumer,
      ) as Promise<void>;
    }
    this.#finishSend(status, options?.thread);
  }

  /**
   * Sends only if that completes at once.
   *
   * @param value The value.
   * @returns True if sent.
   * @throws {Panic} `send on closed channel`.
   */
  trySend(value: T): boolean {
    const m = this.#member;
    encodeValue(m, this.#codec, value, m.scratch, false);
    if (this.#buffered && this.#pushNow(false)) return true;
    m.lock();
    this.#freeze();
    const status = offerFrozen(this, m.scratch);
    if (status === MUST_WAIT) {
      discardValue(m, this.#codec, m.scratch);
      this.#thaw();
      m.unlock();
      return false;
    }
    this.#finishSend(status, undefined);
    return true;
  }

  /**
   * Receives a value, waiting for a sender if needed.
   *
   * @param options The receiving thread.
   * @returns The value, at once or as a promise.
   */
  recv(options?: SharedOpOptions): T | Promise<T> {
    const m = this.#member;
    // Nobody waits on the ring and it has a value: no lock. Else the
    // ladder, under the lock, and maybe a wait. A recording orders
    // attempts by the lock: it takes the ladder.
    if (m.attemptHook !== undefined) {
      return this.#recvLocked(options, false) as T | Promise<T>;
    }
    if (this.#buffered && this.#takeNow()) {
      return takeValue(m, this.#codec, m.scratch);
    }
    if (!this.#buffered) {
      const r = receiveBySlot(this, options?.thread, false, options?.resumer);
      if (r !== MISSED) return r as T | Promise<T>;
    }
    return this.#recvLocked(options, false) as T | Promise<T>;
  }

  /**
   * Receives a value and whether it was sent rather than produced by a
   * close.
   *
   * @param options The receiving thread.
   * @returns The result, at once or as a promise.
   */
  recvOk(options?: SharedOpOptions): RecvResult<T> | Promise<RecvResult<T>> {
    const m = this.#member;
    if (m.attemptHook !== undefined) {
      return this.#recvLocked(options, true) as
        | RecvResult<T>
        | Promise<RecvResult<T>>;
    }
    if (this.#buffered && this.#takeNow()) {
      return { value: takeValue(m, this.#codec, m.scratch), ok: true };
    }
    if (!this.#buffered) {
      const r = receiveBySlot(this, options?.thread, true, options?.resumer);
      if (r !== MISSED) return r as RecvResult<T> | Promise<RecvResult<T>>;
    }
    return this.#recvLocked(options, true) as
      | RecvResult<T>
      | Promise<RecvResult<T>>;
  }

  /**
   * Closes the channel: parked receivers get the zero value (ok false),
   * parked senders panic `send on closed channel`.
   *
   * @throws {Panic} `close of closed channel`.
   */
  close(): void {
    const m = this.#member;
    m.lock();
    this.#freeze();
    this.#noteAttempt();
    const closed = closeFrozen(this);
    this.#thaw(); // closed: SLOW on the tail from now on, senders panic
    m.unlock();
    if (!closed) throw new Panic("close of closed channel");
  }

  // The slow path's steps (with _ladders.ts), for this file and, through
  // _channel_handle.ts, select: each needs the lock held and the ring
  // frozen (between #freeze and #thaw).

  // Freezes the ring, or an unbuffered channel's rendezvous slot (lock
  // held).
  #freeze(): void {
    if (this.#buffered) freeze(this.#member.heap, this.#c);
    else freezeSlot(this.#member.heap, this.#c);
  }

  // Thaws the ring, setting its SLOW bits from the queues, or reopens the
  // slot if nobody waits (lock held).
  #thaw(): void {
    if (this.#buffered) thaw(this.#member.heap, this.#c);
    else thawSlot(this.#member.heap, this.#c);
  }

  // Tells a recording this attempt's place among the channel's (lock
  // held, frozen): the lock orders them.
  #noteAttempt(): void {
    const hook = this.#member.attemptHook;
    if (hook !== undefined) hook(this.#member.heap.i32[this.#c + C_TAG]);
  }

  // The value a closed, drained channel yields, decoded afresh.
  #zeroValue(): T {
    const heap = this.#member.heap;
    return this.#codec.read(heap, heap.i32[this.#c + C_ZERO]);
  }

  // The lock-free send of the value in scratch; when the ring is full and
  // nothing else can run here (`wait`), polls a while for a free slot.
  #pushNow(wait: boolean): boolean {
    const m = this.#member;
    const push = this.#fast.push;
    const off = this.#off;
    let r = push(off, m.scratch << 2);
    if (r === FAST_BLOCKED && wait && m.aloneHere()) {
      if (this.#spinner.until(this.#canPush)) r = push(off, m.scratch << 2);
    }
    return r === FAST_DONE;
  }

  // The lock-free hand-off of the value in scratch to a receiver in the
  // rendezvous slot; when the slot is open and nothing else can run here,
  // polls a while for a receiver to come to it.
  #handOffNow(): boolean {
    const m = this.#member;
    const handOff = this.#fast.handOff;
    const off = this.#off;
    if (handOff(off, m.scratch << 2) !== 0) return true;
    if (Atomics.load(m.heap.i32, this.#c + C_SLOT) !== 0 || !m.aloneHere()) {
      return false;
    }
    return this.#spinner.until(this.#slotUsed) &&
      handOff(off, m.scratch << 2) !== 0;
  }

  // The lock-free receive into scratch, polling like #pushNow, but paced
  // (_spinner.ts, rule 5): a receiver that keeps up with a stream would
  // otherwise take the tail's cache line from the sender at every value.
  #takeNow(): boolean {
    const m = this.#member;
    const take = this.#fast.take;
    const off = this.#off;
    let r = take(off, m.scratch << 2);
    if (r === FAST_BLOCKED && m.aloneHere()) {
      if (this.#spinner.until(this.#canTake, true)) {
        r = take(off, m.scratch << 2);
      }
    }
    return r === FAST_DONE;
  }

  // After a send's ladder completed or found the channel closed (frozen,
  // lock held): thaws, unlocks, and panics on a closed channel.
  #finishSend(status: number, thread: GreenThread | undefined): void {
    const m = this.#member;
    if (status === WAS_CLOSED) discardValue(m, this.#codec, m.scratch);
    this.#thaw();
    m.unlock();
    this.#spinner.answered(); // if its polling ran out, the wait ends here
    if (status === WAS_CLOSED) {
      throw new Panic("send on closed channel", { thread });
    }
  }

  #recvLocked(options: SharedOpOptions | undefined, withOk: boolean): unknown {
    const m = this.#member;
    m.lock();
    this.#freeze();
    this.#noteAttempt();
    const status = pollFrozen(this, m.scratch);
    if (status === MUST_WAIT) {
      return waitOn(this, RECV, options?.thread, withOk, options?.resumer);
    }
    this.#thaw();
    m.unlock();
    this.#spinner.answered();
    const ok = status === COMPLETED;
    const value = ok ? takeValue(m, this.#codec, m.scratch) : this.#zeroValue();
    return withOk ? { value, ok } : value;
  }

  // What only the pool and the slow path reach, which _channel_handle.ts
  // calls (see there).
  static {
    lendChannelHandle({
      open: (member, off, codec) => new SharedChannel(member, off, codec),
      member: (ch) => ch.#member,
      record: (ch) => ch.#off,
      codec: (ch) => ch.#codec,
      buffered: (ch) => ch.#buffered,
      freeze: (ch) => ch.#freeze(),
      thaw: (ch) => ch.#thaw(),
      zeroValue: (ch) => ch.#zeroValue(),
      spinner: (ch) => ch.#spinner,
    });
  }
}
