// Go's select over shared channels, which may be homed on any worker of
// the run: select.ts's three passes, all under the heap's one lock.
//
//   Pass 1 polls every case; if some are ready it picks one uniformly at
//   random from the thread's stream and performs it; else the default.
//   Pass 2 parks on every case: one waiter per case, queued in a random
//   order, all naming one select record.
//   Pass 3 (taking the select off the cases it lost) is done by the waker
//   that fires it, in the same critical section (complete() in
//   _records.ts), so no queue ever holds a stale waiter and no select
//   fires twice, whichever workers its channels' other users are on.

import type { GreenThread } from "../green_thread.ts";
import { Panic } from "../panic.ts";
import type { Random } from "../random.ts";
import type { SelectResult } from "../select.ts";
import {
  C_RECVQ,
  C_SENDQ,
  C_ZERO,
  CLOSED,
  DONE,
  enqueue,
  RECV,
  S_COUNT,
  S_FIRED,
  S_TOKEN,
  S_WAITERS,
  S_WORKER,
  SEND,
  W_CASE,
  W_KIND,
  W_SELECT,
  W_STATE,
  W_VALUE,
  W_WORKER,
  WAITER_BYTES,
} from "./_records.ts";
import { type PoolMember, SharedWait } from "./pool_member.ts";
import { encode, type SharedChannel } from "./shared_channel.ts";

/** One case of a shared select: `recv` or `send` (with `value`), or default. */
export interface SharedCase {
  /** The channel to receive from; `null` is the nil channel. */
  recv?: SharedChannel<unknown> | null;
  /** The channel to send on; `null` is the nil channel. */
  send?: SharedChannel<unknown> | null;
  /** The value to send. */
  value?: unknown;
  /** Marks the default case. */
  default?: boolean;
}

/**
 * Go's select over shared channels (see the top of this file).
 *
 * @param member This worker.
 * @param cases The cases; at most one default, checked by the caller.
 * @param random The PRNG choosing among ready cases.
 * @param thread The selecting thread.
 * @returns The result at once, or a promise of it.
 * @throws {Panic} `send on closed channel` when such a case is chosen.
 */
export function selectShared(
  member: PoolMember,
  cases: readonly SharedCase[],
  random: Random,
  thread: GreenThread | undefined,
): SelectResult | Promise<SelectResult> {
  const n = cases.length;
  member.lock();
  // Pass 1: count the ready cases and find the default.
  let ready = 0;
  let defaultIndex = -1;
  for (let i = 0; i < n; i++) {
    if (isReady(cases[i])) ready++;
    else if (cases[i].default === true) defaultIndex = i;
  }
  if (ready > 0) {
    let k = ready > 1 ? random.nextInt(ready) : 0;
    let chosen = 0;
    for (; chosen < n; chosen++) if (isReady(cases[chosen]) && k-- === 0) break;
    return perform(member, cases[chosen], chosen, thread);
  }
  if (defaultIndex !== -1) {
    member.unlock();
    return { index: defaultIndex, value: undefined, ok: true };
  }
  // Pass 2: park on every case, in a random order.
  const heap = member.heap;
  const parked: number[] = [];
  const order = random.permutation(n);
  const channels: (SharedChannel<unknown> | undefined)[] = new Array(n);
  for (const i of order) {
    const c = cases[i];
    const ch = c.recv ?? c.send;
    if (ch == null) continue;
    channels[i] = ch;
    const w = heap.allocControl(WAITER_BYTES);
    const kind = c.recv != null ? RECV : SEND;
    const blob = kind === SEND ? encode(heap, ch.codec, c.value) : 0;
    const wi = w >> 2;
    const i32 = heap.i32;
    i32[wi + W_KIND] = kind;
    i32[wi + W_VALUE] = blob;
    i32[wi + W_WORKER] = member.self;
    i32[wi + W_CASE] = i;
    enqueue(i32, (ch.off >> 2) + (kind === SEND ? C_SENDQ : C_RECVQ), w);
    parked.push(w);
  }
  const rec = heap.allocControl((S_WAITERS + parked.length) * 4);
  const i32 = heap.i32;
  const si = rec >> 2;
  i32[si + S_FIRED] = -1;
  i32[si + S_WORKER] = member.self;
  i32[si + S_COUNT] = parked.length;
  for (let k = 0; k < parked.length; k++) {
    i32[si + S_WAITERS + k] = parked[k];
    i32[(parked[k] >> 2) + W_SELECT] = rec;
  }
  const wait = new SelectWait(rec, channels, thread);
  i32[si + S_TOKEN] = member.park(
    wait,
    parked.length === 0 ? "select (no cases)" : "select",
  );
  member.unlock();
  return wait.promise;
}

// Precondition: lock held.
function isReady(c: SharedCase): boolean {
  if (c.recv != null) return c.recv.canRecv();
  if (c.send != null) return c.send.canSend();
  return false;
}

// Performs a ready case and releases the lock. Precondition: lock held.
function perform(
  member: PoolMember,
  c: SharedCase,
  index: number,
  thread: GreenThread | undefined,
): SelectResult {
  if (c.recv != null) {
    const ch = c.recv;
    const blob = ch.poll();
    const ok = ch.polledOk;
    member.unlock();
    return { index, value: ch.take(blob), ok };
  }
  c.send!.offer(c.value, thread); // ready: completes, or panics unlocking
  member.unlock();
  return { index, value: undefined, ok: true };
}

// A parked select: reads which case fired, and its outcome, when resumed.
class SelectWait extends SharedWait<SelectResult> {
  readonly #record: number;
  readonly #channels: readonly (SharedChannel<unknown> | undefined)[];

  constructor(
    record: number,
    channels: readonly (SharedChannel<unknown> | undefined)[],
    thread: GreenThread | undefined,
  ) {
    super(thread);
    this.#record = record;
    this.#channels = channels;
  }

  settle(member: PoolMember): void {
    const i32 = member.heap.i32;
    const si = this.#record >> 2;
    const index = i32[si + S_FIRED];
    let fired = 0;
    // Free every case's waiter, and the values of the sends that lost.
    for (let k = 0; k < i32[si + S_COUNT]; k++) {
      const w = i32[si + S_WAITERS + k];
      const wi = w >> 2;
      if (i32[wi + W_CASE] === index) fired = w;
      else if (i32[wi + W_KIND] === SEND) {
        this.#channels[i32[wi + W_CASE]]!.discard(i32[wi + W_VALUE]);
      }
      member.freeControlLater(w);
    }
    member.freeControlLater(this.#record);
    const wi = fired >> 2;
    const state = i32[wi + W_STATE];
    if (i32[wi + W_KIND] === SEND) {
      if (state === DONE) {
        return this.resolve({ index, value: undefined, ok: true });
      }
      this.#channels[index]!.discard(i32[wi + W_VALUE]);
      return this.reject(
        new Panic("send on closed channel", { thread: this.thread }),
      );
    }
    const ch = this.#channels[index]!;
    const closed = state === CLOSED;
    const blob = closed ? i32[(ch.off >> 2) + C_ZERO] : i32[wi + W_VALUE];
    this.resolve({ index, value: ch.take(blob), ok: !closed });
  }
}
