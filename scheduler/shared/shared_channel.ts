// Channels that green threads on several workers share, with the same
// semantics as channel.ts: direct hand-off, FIFO buffers, Go's panics, the
// zero value after close. The state lives in the run's shared heap (see
// _records.ts for the layout); every operation is one critical section
// under the heap's lock, so the ladders below read as channel.ts's do.
//
// Values cross workers as blobs: a codec writes a value into a blob with
// the lock held, and the receiver reads it back after releasing the lock,
// then frees it. A channel's handle on a worker is a small object naming
// the record; handles of one channel on different workers are different
// objects, so compare channels by their record (`off`), not with `===`.
//
// Invariants (lock held), as in channel.ts:
//   At least one of the receive and send queues is empty, except when one
//   select parks on both sides of the same unbuffered channel.
//   Buffered: count > 0 implies no parked receiver; count < cap implies no
//   parked sender. Closed: both queues are empty and stay so.

import type { GreenThread } from "../green_thread.ts";
import { Panic } from "../panic.ts";
import type { RecvResult } from "../channel.ts";
import {
  C_CAP,
  C_CLOSED,
  C_COUNT,
  C_HEAD,
  C_ID,
  C_RECVQ,
  C_RING,
  C_RING_CAP,
  C_SENDQ,
  C_TAG,
  C_ZERO,
  CHANNEL_BYTES,
  CLOSED,
  complete,
  dequeue,
  DONE,
  enqueue,
  PANICKED,
  RECV,
  SEND,
  W_KIND,
  W_STATE,
  W_TOKEN,
  W_VALUE,
  W_WORKER,
  WAITER_BYTES,
} from "./_records.ts";
import { Global, type SharedHeap } from "./heap.ts";
import { type PoolMember, SharedWait } from "./pool_member.ts";

/** How values of a channel's type become blobs in the heap, and back. */
export interface SharedCodec<T> {
  /**
   * The bytes `value` takes as a blob in `heap`.
   *
   * @param heap The heap.
   * @param value The value.
   * @returns The size.
   */
  byteLength(heap: SharedHeap, value: T): number;
  /**
   * Writes `value` as a blob at `off`. The lock is held: be quick.
   *
   * @param heap The heap.
   * @param off The blob, of `byteLength(value)` bytes.
   * @param value The value.
   */
  write(heap: SharedHeap, off: number, value: T): void;
  /**
   * Reads a value back. The lock is not held; the blob is the caller's.
   *
   * @param heap The heap.
   * @param off The blob.
   * @returns The value.
   */
  read(heap: SharedHeap, off: number): T;
  /**
   * Lets go of what a blob holds beyond its own bytes, just before the
   * blob is freed, whether or not it was read. Safe with or without the
   * lock.
   *
   * @param heap The heap.
   * @param off The blob.
   */
  discard?(heap: SharedHeap, off: number): void;
}

/** Options of shared channel operations. */
export interface SharedOpOptions {
  /** The green thread making the operation; counted as blocked while it waits. */
  thread?: GreenThread;
}

// The largest ring allocated up front; bigger capacities grow by doubling.
const RING_START = 1024;
// How many times an operation polls before it parks (a few µs).
const SPINS = 1000;

/**
 * A channel whose state lives in a run's shared heap, usable from every
 * worker of the run.
 *
 * @typeParam T The values carried.
 */
export class SharedChannel<T> {
  /** The worker this handle belongs to. */
  readonly member: PoolMember;
  /** The channel's record in the heap. */
  readonly off: number;
  /** How values become blobs. */
  readonly codec: SharedCodec<T>;
  // Whether the last #poll took a sent value (true) or a close's zero.
  #polledOk = true;

  /**
   * A handle on an existing channel record.
   *
   * @param member This worker.
   * @param off The record.
   * @param codec The channel's codec.
   */
  constructor(member: PoolMember, off: number, codec: SharedCodec<T>) {
    this.member = member;
    this.off = off;
    this.codec = codec;
  }

  /**
   * Makes a channel in the run's heap.
   *
   * @param member This worker.
   * @param capacity The buffer size.
   * @param codec How values become blobs.
   * @param zero The value a closed, drained channel yields.
   * @param tag A number kept with the channel for its user.
   * @returns A handle on the new channel.
   * @throws {Panic} `makechan: size out of range`.
   */
  static create<T>(
    member: PoolMember,
    capacity: number,
    codec: SharedCodec<T>,
    zero: T,
    tag = 0,
  ): SharedChannel<T> {
    if (!Number.isInteger(capacity) || capacity < 0 || capacity >= 2 ** 31) {
      throw new Panic("makechan: size out of range");
    }
    member.lock();
    try {
      const heap = member.heap;
      const off = heap.allocControl(CHANNEL_BYTES);
      const ringCap = Math.min(capacity, RING_START);
      const ring = ringCap === 0 ? 0 : heap.allocControl(ringCap * 4);
      const zeroBlob = encode(heap, codec, zero);
      const c = off >> 2;
      const i32 = heap.i32;
      i32[c + C_CAP] = capacity;
      i32[c + C_RING] = ring;
      i32[c + C_RING_CAP] = ringCap;
      i32[c + C_ZERO] = zeroBlob;
      i32[c + C_TAG] = tag;
      i32[c + C_ID] = Atomics.add(i32, Global.NextObjectId, 1);
      return new SharedChannel(member, off, codec);
    } finally {
      member.unlock();
    }
  }

  /**
   * The buffer capacity.
   *
   * @returns The capacity.
   */
  get cap(): number {
    return this.member.heap.i32[(this.off >> 2) + C_CAP];
  }

  /**
   * The number of buffered values (a snapshot).
   *
   * @returns The count.
   */
  get len(): number {
    return Atomics.load(this.member.heap.i32, (this.off >> 2) + C_COUNT);
  }

  /**
   * Whether the channel has been closed (a snapshot).
   *
   * @returns True after `close()`.
   */
  get closed(): boolean {
    return Atomics.load(this.member.heap.i32, (this.off >> 2) + C_CLOSED) !== 0;
  }

  /**
   * The number kept with the channel when it was made.
   *
   * @returns The tag.
   */
  get tag(): number {
    return this.member.heap.i32[(this.off >> 2) + C_TAG];
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
    const m = this.member;
    if (!this.canSendHint() && m.aloneHere()) this.#spin(true);
    m.lock();
    if (!this.offer(value, options?.thread)) {
      const blob = encode(m.heap, this.codec, value);
      return this.#park(SEND, blob, options, "chan send") as Promise<void>;
    }
    m.unlock();
  }

  /**
   * Sends only if that completes at once.
   *
   * @param value The value.
   * @returns True if sent.
   * @throws {Panic} `send on closed channel`.
   */
  trySend(value: T): boolean {
    const m = this.member;
    m.lock();
    const sent = this.offer(value, undefined);
    m.unlock();
    return sent;
  }

  /**
   * Receives a value, waiting for a sender if needed.
   *
   * @param options The receiving thread.
   * @returns The value, at once or as a promise.
   */
  recv(options?: SharedOpOptions): T | Promise<T> {
    const m = this.member;
    if (!this.canRecvHint() && m.aloneHere()) this.#spin(false);
    m.lock();
    const blob = this.poll();
    if (blob === -1) {
      return this.#park(RECV, 0, options, "chan receive") as Promise<T>;
    }
    m.unlock();
    return this.take(blob);
  }

  /**
   * Receives a value and whether it was sent rather than produced by a
   * close.
   *
   * @param options The receiving thread.
   * @returns The result, at once or as a promise.
   */
  recvOk(options?: SharedOpOptions): RecvResult<T> | Promise<RecvResult<T>> {
    const m = this.member;
    if (!this.canRecvHint() && m.aloneHere()) this.#spin(false);
    m.lock();
    const blob = this.poll();
    if (blob === -1) {
      return this.#park(RECV, 0, options, "chan receive", true) as Promise<
        RecvResult<T>
      >;
    }
    m.unlock();
    const ok = this.#polledOk;
    return { value: this.take(blob), ok };
  }

  /**
   * Closes the channel: parked receivers get the zero value (ok false),
   * parked senders panic `send on closed channel`.
   *
   * @throws {Panic} `close of closed channel`.
   */
  close(): void {
    const m = this.member;
    m.lock();
    const i32 = m.heap.i32;
    const c = this.off >> 2;
    if (i32[c + C_CLOSED] !== 0) {
      m.unlock();
      throw new Panic("close of closed channel");
    }
    Atomics.store(i32, c + C_CLOSED, 1);
    for (
      let w = dequeue(i32, c + C_RECVQ);
      w !== 0;
      w = dequeue(i32, c + C_RECVQ)
    ) {
      complete(m, w, 0, CLOSED);
    }
    for (
      let w = dequeue(i32, c + C_SENDQ);
      w !== 0;
      w = dequeue(i32, c + C_SENDQ)
    ) {
      complete(m, w, 0, PANICKED);
    }
    m.unlock();
  }

  /**
   * Whether a receive would likely complete at once, read without the lock
   * (a hint: the answer may be stale when it arrives).
   *
   * @returns True if it looks ready.
   */
  canRecvHint(): boolean {
    const i32 = this.member.heap.i32;
    const c = this.off >> 2;
    return Atomics.load(i32, c + C_COUNT) > 0 ||
      Atomics.load(i32, c + C_SENDQ) !== 0 ||
      Atomics.load(i32, c + C_CLOSED) !== 0;
  }

  /**
   * Whether a send would likely complete at once, read without the lock.
   *
   * @returns True if it looks ready.
   */
  canSendHint(): boolean {
    const i32 = this.member.heap.i32;
    const c = this.off >> 2;
    return Atomics.load(i32, c + C_COUNT) < i32[c + C_CAP] ||
      Atomics.load(i32, c + C_RECVQ) !== 0 ||
      Atomics.load(i32, c + C_CLOSED) !== 0;
  }

  /**
   * Whether a receive would complete at once. Precondition: lock held.
   *
   * @returns True if ready.
   */
  canRecv(): boolean {
    const i32 = this.member.heap.i32;
    const c = this.off >> 2;
    return i32[c + C_SENDQ] !== 0 || i32[c + C_COUNT] > 0 ||
      i32[c + C_CLOSED] !== 0;
  }

  /**
   * Whether a send would complete or panic at once. Precondition: lock held.
   *
   * @returns True if ready.
   */
  canSend(): boolean {
    const i32 = this.member.heap.i32;
    const c = this.off >> 2;
    return i32[c + C_CLOSED] !== 0 || i32[c + C_RECVQ] !== 0 ||
      i32[c + C_COUNT] < i32[c + C_CAP];
  }

  /**
   * The send ladder short of parking. Precondition: lock held; it stays
   * held, except that a panic releases it.
   *
   * @param value The value.
   * @param thread The sending thread, named by a panic.
   * @returns False when the send must wait.
   */
  offer(value: T, thread: GreenThread | undefined): boolean {
    const m = this.member;
    const heap = m.heap;
    const c = this.off >> 2;
    // Closed: panic.
    if (heap.i32[c + C_CLOSED] !== 0) {
      m.unlock();
      throw new Panic("send on closed channel", { thread });
    }
    // A receiver is waiting (so the buffer is empty): hand the value over.
    const w = dequeue(heap.i32, c + C_RECVQ);
    if (w !== 0) {
      complete(m, w, encode(heap, this.codec, value), DONE);
      return true;
    }
    // Buffer space: append to the ring.
    const i32 = heap.i32;
    const count = i32[c + C_COUNT];
    if (count < i32[c + C_CAP]) {
      if (count === i32[c + C_RING_CAP]) this.#grow();
      const blob = encode(heap, this.codec, value);
      const ring = heap.i32;
      const cap = ring[c + C_RING_CAP];
      let i = ring[c + C_HEAD] + count;
      if (i >= cap) i -= cap;
      ring[(ring[c + C_RING] >> 2) + i] = blob;
      Atomics.store(ring, c + C_COUNT, count + 1);
      return true;
    }
    return false;
  }

  /**
   * The receive ladder short of parking. Precondition: lock held; it stays
   * held. Returns the blob received (the channel's zero blob once closed
   * and drained: see `take`), or -1 when the receive must wait.
   *
   * @returns A blob, or -1.
   */
  poll(): number {
    const m = this.member;
    const i32 = m.heap.i32;
    const c = this.off >> 2;
    // A sender is waiting. Unbuffered: take its value directly. Buffered
    // (so the buffer is full): take the head, put the sender's value in the
    // slot just freed. Either way its send is complete.
    const w = dequeue(i32, c + C_SENDQ);
    if (w !== 0) {
      let blob = i32[(w >> 2) + W_VALUE];
      if (i32[c + C_CAP] !== 0) {
        const slot = (i32[c + C_RING] >> 2) + i32[c + C_HEAD];
        const head = blob;
        blob = i32[slot];
        i32[slot] = head;
        this.#advance();
      }
      complete(m, w, 0, DONE);
      this.#polledOk = true;
      return blob;
    }
    // A buffered value: take the head of the ring.
    const count = i32[c + C_COUNT];
    if (count > 0) {
      const blob = i32[(i32[c + C_RING] >> 2) + i32[c + C_HEAD]];
      this.#advance();
      Atomics.store(i32, c + C_COUNT, count - 1);
      this.#polledOk = true;
      return blob;
    }
    // Closed and drained: the zero value, not ok.
    if (i32[c + C_CLOSED] !== 0) {
      this.#polledOk = false;
      return i32[c + C_ZERO];
    }
    return -1;
  }

  /**
   * Whether the last `poll` got a sent value (true) or the zero (false).
   *
   * @returns The ok flag.
   */
  get polledOk(): boolean {
    return this.#polledOk;
  }

  /**
   * Decodes a blob from `poll` or a completed receive, and frees it unless
   * it is the channel's zero blob. Call without the lock.
   *
   * @param blob The blob.
   * @returns The value.
   */
  take(blob: number): T {
    const m = this.member;
    const value = this.codec.read(m.heap, blob);
    if (blob !== m.heap.i32[(this.off >> 2) + C_ZERO]) this.discard(blob);
    return value;
  }

  /**
   * Frees a blob of this channel's values, read or not, with what it holds.
   *
   * @param blob The blob.
   */
  discard(blob: number): void {
    const m = this.member;
    this.codec.discard?.(m.heap, blob);
    m.freeDataLater(blob);
  }

  // Polls, without the lock, until the operation looks ready or a few
  // microseconds pass: when this thread is the last runnable one here, a
  // hand-off from another worker often comes sooner than a park and a wake
  // take.
  #spin(sending: boolean): void {
    // An unbuffered channel needs one side parked: the other completes it.
    if (this.cap === 0) return;
    for (let i = 0; i < SPINS; i++) {
      if (sending ? this.canSendHint() : this.canRecvHint()) return;
    }
  }

  // Parks the thread on a new waiter in the queue of `kind`, releasing the
  // lock; the sender, receiver or closer that dequeues it completes it.
  #park(
    kind: number,
    blob: number,
    options: SharedOpOptions | undefined,
    reason: "chan send" | "chan receive",
    withOk = false,
  ): Promise<unknown> {
    const m = this.member;
    const heap = m.heap;
    const w = heap.allocControl(WAITER_BYTES);
    const i32 = heap.i32;
    const wi = w >> 2;
    i32[wi + W_KIND] = kind;
    i32[wi + W_VALUE] = blob;
    i32[wi + W_WORKER] = m.self;
    const op = new ChannelWait(this, w, options?.thread, withOk);
    i32[wi + W_TOKEN] = m.park(op, reason);
    enqueue(i32, (this.off >> 2) + (kind === SEND ? C_SENDQ : C_RECVQ), w);
    m.unlock();
    return op.promise;
  }

  #advance(): void {
    const i32 = this.member.heap.i32;
    const c = this.off >> 2;
    const h = i32[c + C_HEAD] + 1;
    i32[c + C_HEAD] = h === i32[c + C_RING_CAP] ? 0 : h;
  }

  // Precondition: lock held; the ring is full and shorter than the capacity.
  #grow(): void {
    const heap = this.member.heap;
    const c = this.off >> 2;
    let i32 = heap.i32;
    const old = i32[c + C_RING];
    const oldCap = i32[c + C_RING_CAP];
    const cap = Math.min(oldCap * 2, i32[c + C_CAP]);
    const ring = heap.allocControl(cap * 4);
    i32 = heap.i32;
    const head = i32[c + C_HEAD];
    const count = i32[c + C_COUNT];
    for (let i = 0; i < count; i++) {
      i32[(ring >> 2) + i] = i32[(old >> 2) + ((head + i) % oldCap)];
    }
    heap.freeControl(old);
    i32[c + C_RING] = ring;
    i32[c + C_RING_CAP] = cap;
    i32[c + C_HEAD] = 0;
  }
}

/**
 * Writes `value` as a new blob. Precondition: lock held.
 *
 * @param heap The heap.
 * @param codec The codec.
 * @param value The value.
 * @returns The blob.
 */
export function encode<T>(
  heap: SharedHeap,
  codec: SharedCodec<T>,
  value: T,
): number {
  const blob = heap.allocData(codec.byteLength(heap, value));
  codec.write(heap, blob, value);
  return blob;
}

// A parked send or receive: reads its outcome from the waiter when resumed.
class ChannelWait<T> extends SharedWait<unknown> {
  readonly #channel: SharedChannel<T>;
  readonly #waiter: number;
  readonly #withOk: boolean;

  constructor(
    channel: SharedChannel<T>,
    waiter: number,
    thread: GreenThread | undefined,
    withOk: boolean,
  ) {
    super(thread);
    this.#channel = channel;
    this.#waiter = waiter;
    this.#withOk = withOk;
  }

  settle(member: PoolMember): void {
    const i32 = member.heap.i32;
    const wi = this.#waiter >> 2;
    const state = i32[wi + W_STATE];
    const blob = i32[wi + W_VALUE];
    member.freeControlLater(this.#waiter);
    if (i32[wi + W_KIND] === SEND) {
      if (state === DONE) return this.resolve(undefined);
      this.#channel.discard(blob);
      return this.reject(
        new Panic("send on closed channel", { thread: this.thread }),
      );
    }
    const ch = this.#channel;
    const closed = state === CLOSED;
    const value = ch.take(closed ? i32[(ch.off >> 2) + C_ZERO] : blob);
    this.resolve(this.#withOk ? { value, ok: !closed } : value);
  }
}
