// The fast path of unbuffered shared channels: a rendezvous slot beside
// the queues, so that a receiver that polls and the sender that comes to it
// meet without the heap's lock. In a ping-pong between two workers each
// hand-off then touches two cache lines (the slot's and the waiter's)
// instead of the lock's, the record's and the waiter's under the lock.
//
// Invariants:
//   The slot (C_SLOT) holds a waiter only while both queues are empty, the
//   channel is open and no locked operation is under way on it. Every
//   locked operation on an unbuffered channel begins with `freezeSlot`,
//   which sets SLOT_FROZEN and moves a waiter found there to the receive
//   queue (it is then the only, so the oldest, receiver), and ends with
//   `thawSlot`, which reopens the slot only if those conditions hold.
//   A waiter in the slot is a plain receive (no select) whose owner polls
//   (NO_TOKEN). A sender that takes it out with a compare-and-swap owns its
//   completion: it writes the value, then stores DONE last.
//   An owner whose polling runs out takes the lock and freezes the slot:
//   its waiter is then either in the queue (it parks with a token, as any
//   queued waiter does, and whoever dequeues it wakes it), completed, or
//   taken by a sender that is completing it (the owner waits the few
//   instructions that takes).

import type { GreenThread } from "../green_thread.ts";
import { Panic } from "../panic.ts";
import type { Resumer } from "../resumer.ts";
import { channelOutcome, ChannelWait } from "./_parking.ts";
import {
  C_CLOSED,
  C_RECVQ,
  C_SENDQ,
  C_SLOT,
  enqueue,
  RECV,
  SLOT_FROZEN,
  spareWaiter,
  W_QUEUE,
  W_STATE,
  W_TOKEN,
  WAITING,
} from "./_records.ts";
import { lockFreeWasm } from "./_lock_free_wasm.ts";
import type { SharedHeap } from "./heap.ts";
import type { SharedChannel } from "./shared_channel.ts";
import {
  channelMember,
  channelRecord,
  channelSpinner,
  freezeChannel,
  thawChannel,
} from "./_channel_handle.ts";

/** What `receiveBySlot` returns when the slot could not be used. */
export const MISSED: unique symbol = Symbol("rill.slotMissed");

/**
 * Closes the slot for a locked operation, moving a waiting receiver to the
 * receive queue. Precondition: the lock is held.
 *
 * @param heap The heap.
 * @param c The channel record's first word.
 */
export function freezeSlot(heap: SharedHeap, c: number): void {
  const w = Atomics.exchange(heap.i32, c + C_SLOT, SLOT_FROZEN);
  if (w > 0) enqueue(heap.i32, c + C_RECVQ, w);
}

/**
 * Reopens the slot after a locked operation if both queues are empty and
 * the channel is open. Precondition: the lock is held.
 *
 * @param heap The heap.
 * @param c The channel record's first word.
 */
export function thawSlot(heap: SharedHeap, c: number): void {
  const i32 = heap.i32;
  if (
    i32[c + C_RECVQ] === 0 && i32[c + C_SENDQ] === 0 && i32[c + C_CLOSED] === 0
  ) {
    Atomics.store(i32, c + C_SLOT, 0);
  }
}

/**
 * Hands the value in value area `from` (a word index) to the receiver
 * waiting in the slot, if there is one; no lock.
 *
 * @param heap The heap.
 * @param c The channel record's first word.
 * @param from The sender's value area.
 * @returns True if the value went to a receiver.
 */
export function handOff(heap: SharedHeap, c: number, from: number): boolean {
  // WebAssembly (_lock_free_wasm.ts): its atomics are inline, where an
  // Atomics call costs 15-30 ns here. A plain read of the slot guesses,
  // the compare-and-swap decides; DONE is stored after the value.
  return lockFreeWasm(heap).handOff(c << 2, from << 2) !== 0;
}

/**
 * Receives through the slot: publishes a waiter there and polls it, then,
 * if no sender came in time, parks it as a queued waiter. For a worker
 * with nothing else to run; no lock unless it parks.
 *
 * @param channel An unbuffered channel.
 * @param thread The receiving thread.
 * @param withOk Whether the outcome reports `ok`.
 * @param resumer What continues the receiving code instead of a promise.
 * @returns The outcome (see `channelOutcome`), a promise of it, or MISSED
 * when the slot is frozen or taken, another thread could run here, or the
 * worker has no spare waiter: then receive under the lock.
 * @throws {Panic} When a sender took the waiter and its worker stopped
 * before completing it.
 */
export function receiveBySlot<T>(
  channel: SharedChannel<T>,
  thread: GreenThread | undefined,
  withOk: boolean,
  resumer: Resumer | undefined,
): unknown {
  const m = channelMember(channel);
  const i32 = m.heap.i32;
  const c = channelRecord(channel) >> 2;
  // A guess, as in handOff: the compare-and-swap below decides.
  if (i32[c + C_SLOT] !== 0 || !m.aloneHere()) return MISSED;
  const w = spareWaiter(m, RECV);
  if (w === 0) return MISSED;
  if (Atomics.compareExchange(i32, c + C_SLOT, 0, w) !== 0) {
    m.spares.push(w);
    return MISSED;
  }
  const state = (w >> 2) + W_STATE;
  if (!channelSpinner(channel).whileEquals(i32, state, WAITING)) {
    m.lock();
    freezeChannel(channel);
    if (Atomics.load(i32, state) === WAITING && i32[(w >> 2) + W_QUEUE] !== 0) {
      const op = new ChannelWait(channel, w, thread, withOk, resumer);
      i32[(w >> 2) + W_TOKEN] = m.park(op, "chan receive");
      thawChannel(channel);
      m.unlock();
      return op.promise;
    }
    thawChannel(channel);
    m.unlock();
    awaitHandOff(i32, state, thread);
  }
  return channelOutcome(channel, w, withOk, thread);
}

// How long an owner waits for a sender that took its waiter from the slot
// to store the state: a few instructions, unless the sender's worker died
// in between, when the run must fail rather than hang.
const STALL_MS = 1000;

function awaitHandOff(
  i32: Int32Array,
  state: number,
  thread: GreenThread | undefined,
): void {
  const start = performance.now();
  for (let i = 1; Atomics.load(i32, state) === WAITING; i++) {
    if ((i & 1023) === 0 && performance.now() - start > STALL_MS) {
      throw new Panic("a worker stopped while handing over a value", {
        thread,
      });
    }
  }
}
