// How a shared channel operation or select waits once its waiters are
// queued: it polls for a while when its worker has nothing else to run,
// else (or after that) it parks until its waker wakes it by token.
//
// The switch from polling to parked happens with the lock held, and so does
// every completion (_records.ts's `complete`), which wakes only a parked
// owner: a completion either comes during the polling, and the operation
// returns at once, or finds a token and wakes it, never both, never neither.

import type { GreenThread } from "../green_thread.ts";
import { Panic } from "../panic.ts";
import type { Resumer } from "../resumer.ts";
import {
  C_RECVQ,
  C_SENDQ,
  CLOSED,
  DONE,
  dropWaiter,
  enqueue,
  newWaiter,
  SEND,
  W_KIND,
  W_STATE,
  W_TOKEN,
  W_VALUE,
  WAITING,
} from "./_records.ts";
import { copyValue, discardValue, takeValue } from "./_values.ts";
import type { PoolMember } from "./pool_member.ts";
import { SharedWait } from "./shared_wait.ts";
import type { SharedChannel } from "./shared_channel.ts";
import {
  channelCodec,
  channelMember,
  channelRecord,
  channelSpinner,
  thawChannel,
  zeroValueOf,
} from "./_channel_handle.ts";
import type { Spinner } from "./_spinner.ts";

/**
 * Polls word `word` of the heap while it has the value `idle`, the mark of
 * an operation not yet completed, if this worker has nothing else to run.
 * Precondition: the lock is held and the operation's waiters are queued,
 * with NO_TOKEN as their token.
 *
 * @param member This worker.
 * @param spinner How long to poll: the channel's, or the worker's for a
 * select. A spinner whose polling ran out for this wait already is not
 * polled again.
 * @param word The state word (a waiter's W_STATE, a select's S_FIRED).
 * @param idle Its value until the operation completes.
 * @returns True if the operation completed, with the lock released: read
 * its outcome now. False with the lock held: park, storing the token.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { pollFirst } from "./_parking.ts";
 * import { newWaiter, RECV, W_STATE, WAITING } from "./_records.ts";
 * import { assert } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * member.lock();
 * const w = newWaiter(member, RECV);
 * // No thread of this worker is running: nothing to poll for, park.
 * assert(!pollFirst(member, member.spinner, (w >> 2) + W_STATE, WAITING));
 * member.unlock();
 * ```
 */
export function pollFirst(
  member: PoolMember,
  spinner: Spinner,
  word: number,
  idle: number,
): boolean {
  // A wait whose polling ran out already (the fast path's) parks at once.
  if (!member.aloneHere() || spinner.waiting) return false;
  member.unlock();
  const heap = member.heap;
  if (spinner.whileEquals(heap.i32, word, idle)) return true;
  member.lock();
  if (Atomics.load(heap.i32, word) === idle) return false;
  member.unlock();
  return true;
}

/**
 * Queues a waiter of `kind` on `channel` (a send's value from this
 * worker's scratch area), thaws the channel and waits: polls, then parks
 * (see `pollFirst`). The sender, receiver or closer that dequeues the
 * waiter completes it. Precondition: the lock is held and the channel
 * frozen; releases both.
 *
 * @param channel The channel.
 * @param kind RECV or SEND.
 * @param thread The waiting thread.
 * @param withOk Whether a receive reports `ok`.
 * @param resumer What continues the waiting code instead of a promise.
 * @returns The outcome (see `channelOutcome`), or a promise of it
 * (`PARKED` with a resumer).
 * @throws {Panic} `send on closed channel`, when that is the outcome at
 * once.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createSharedChannel, freezeChannel } from "./_channel_handle.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { waitOn } from "./_parking.ts";
 * import { RECV } from "./_records.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const scheduler = new Scheduler({ threadContext: false });
 * const member = new PoolMember(heap, 0, scheduler);
 * const codec = {
 *   byteLength: () => 8,
 *   write: (h: SharedHeap, off: number, v: number) => void (h.f64[off >> 3] = v),
 *   read: (h: SharedHeap, off: number) => h.f64[off >> 3],
 * };
 * await scheduler.run(async (thread) => {
 *   const ch = createSharedChannel(member, 0, codec, 0);
 *   scheduler.go(() => void ch.send(4)); // runs once the receive waits
 *   member.lock();
 *   freezeChannel(ch);
 *   assertEquals(await waitOn(ch, RECV, thread, true), { value: 4, ok: true });
 *   member.close();
 * });
 * ```
 */
export function waitOn<T>(
  channel: SharedChannel<T>,
  kind: number,
  thread: GreenThread | undefined,
  withOk: boolean,
  resumer?: Resumer,
): unknown {
  const m = channelMember(channel);
  const w = newWaiter(m, kind);
  const i32 = m.heap.i32;
  const wi = w >> 2;
  if (kind === SEND) copyValue(i32, m.scratch, wi + W_VALUE);
  enqueue(
    i32,
    (channelRecord(channel) >> 2) + (kind === SEND ? C_SENDQ : C_RECVQ),
    w,
  );
  thawChannel(channel);
  if (pollFirst(m, channelSpinner(channel), wi + W_STATE, WAITING)) {
    return channelOutcome(channel, w, withOk, thread);
  }
  const op = new ChannelWait(channel, w, thread, withOk, resumer);
  i32[wi + W_TOKEN] = m.park(op, kind === SEND ? "chan send" : "chan receive");
  m.unlock();
  return op.promise;
}

/**
 * The outcome of a completed send or receive that waited on waiter `w`,
 * which this frees: a send's `undefined`; a receive's value, or with
 * `withOk` its `{ value, ok }`. Call without the lock.
 *
 * @param channel The channel.
 * @param w The waiter.
 * @param withOk Whether a receive reports `ok`.
 * @param thread The waiting thread, named by a panic.
 * @returns The outcome.
 * @throws {Panic} `send on closed channel`.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createSharedChannel } from "./_channel_handle.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { channelOutcome } from "./_parking.ts";
 * import { complete, DONE, newWaiter, RECV, W_VALUE } from "./_records.ts";
 * import { encodeValue } from "./_values.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * const codec = {
 *   byteLength: () => 8,
 *   write: (h: SharedHeap, off: number, v: number) => void (h.f64[off >> 3] = v),
 *   read: (h: SharedHeap, off: number) => h.f64[off >> 3],
 * };
 * const ch = createSharedChannel(member, 0, codec, 0);
 * member.lock();
 * const w = newWaiter(member, RECV);
 * encodeValue(member, codec, 8, (w >> 2) + W_VALUE, true); // what a sender does
 * complete(member, w, DONE);
 * member.unlock();
 * assertEquals(channelOutcome(ch, w, true, undefined), { value: 8, ok: true });
 * ```
 */
export function channelOutcome<T>(
  channel: SharedChannel<T>,
  w: number,
  withOk: boolean,
  thread: GreenThread | undefined,
): unknown {
  const member = channelMember(channel);
  channelSpinner(channel).answered(); // if its polling ran out, it ends here
  const i32 = member.heap.i32;
  const wi = w >> 2;
  const state = i32[wi + W_STATE];
  if (i32[wi + W_KIND] === SEND) {
    if (state !== DONE) {
      discardValue(member, channelCodec(channel), wi + W_VALUE);
    }
    dropWaiter(member, w);
    if (state === DONE) return undefined;
    throw new Panic("send on closed channel", { thread });
  }
  const ok = state !== CLOSED;
  // Decoded before the waiter is freed: the value may be in it.
  const value = ok
    ? takeValue(member, channelCodec(channel), wi + W_VALUE)
    : zeroValueOf(channel);
  dropWaiter(member, w);
  return withOk ? { value, ok } : value;
}

/**
 * A parked send or receive: reads its outcome from the waiter when woken.
 *
 * @typeParam T The channel's values.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createSharedChannel } from "./_channel_handle.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { ChannelWait } from "./_parking.ts";
 * import { CLOSED, complete, newWaiter, RECV } from "./_records.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * const codec = {
 *   byteLength: () => 8,
 *   write: (h: SharedHeap, off: number, v: number) => void (h.f64[off >> 3] = v),
 *   read: (h: SharedHeap, off: number) => h.f64[off >> 3],
 * };
 * const ch = createSharedChannel(member, 0, codec, -1);
 * member.lock();
 * const w = newWaiter(member, RECV);
 * complete(member, w, CLOSED); // what a close does
 * member.unlock();
 * const wait = new ChannelWait(ch, w, undefined, true);
 * wait.settle(member);
 * assertEquals(await wait.promise, { value: -1, ok: false });
 * ```
 */
export class ChannelWait<T> extends SharedWait<unknown> {
  readonly #channel: SharedChannel<T>;
  readonly #waiter: number;
  readonly #withOk: boolean;

  /**
   * @param channel The channel.
   * @param waiter The queued waiter.
   * @param thread The parking thread.
   * @param withOk Whether a receive reports `ok`.
   * @param resumer What continues the parked code instead of a promise.
   */
  constructor(
    channel: SharedChannel<T>,
    waiter: number,
    thread: GreenThread | undefined,
    withOk: boolean,
    resumer?: Resumer,
  ) {
    super(thread, resumer);
    this.#channel = channel;
    this.#waiter = waiter;
    this.#withOk = withOk;
  }

  /**
   * Settles the promise with the outcome.
   *
   * @param _member The owning worker (the channel's).
   */
  settle(_member: PoolMember): void {
    try {
      this.resolve(
        channelOutcome(this.#channel, this.#waiter, this.#withOk, this.thread),
      );
    } catch (error) {
      this.reject(error);
    }
  }
}
