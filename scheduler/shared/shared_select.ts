// Go's select over shared channels, which may be homed on any worker of
// the run: select.ts's three passes, all under the heap's one lock, with
// the rings of the select's buffered channels frozen (_ring.ts), so that
// no lock-free send or receive changes a channel between the passes.
//
//   Pass 1 polls every case; if some are ready it picks one uniformly at
//   random from the thread's stream and performs it; else the default.
//   Pass 2 parks on every case: one waiter per case, queued in a random
//   order, all naming one select record. Thawing the rings then sets
//   their SLOW bits, so that every later operation on them sees the
//   waiters.
//   Pass 3 (taking the select off the cases it lost) is done by the waker
//   that fires it, in the same critical section (complete() in
//   _records.ts), so no queue ever holds a stale waiter and no select
//   fires twice, whichever workers its channels' other users are on.
//
// Lock order: the heap's lock, then the rings' side locks, in any order;
// only a holder of the heap's lock takes more than one side lock, and the
// lock-free paths, which take one, wait for nothing while they hold it.

import type { GreenThread } from "../green_thread.ts";
import type { Resumer } from "../resumer.ts";
import { Panic } from "../panic.ts";
import type { Random } from "../random.ts";
import type { SelectResult } from "../select.ts";
import {
  COMPLETED,
  offerFrozen,
  pollFrozen,
  readyToRecv,
  readyToSend,
  WAS_CLOSED,
} from "./_ladders.ts";
import { pollFirst } from "./_parking.ts";
import {
  C_RECVQ,
  C_SENDQ,
  C_TAG,
  CLOSED,
  DONE,
  dropWaiter,
  enqueue,
  newWaiter,
  NO_TOKEN,
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
} from "./_records.ts";
import { discardValue, encodeValue, takeValue } from "./_values.ts";
import type { PoolMember } from "./pool_member.ts";
import { SharedWait } from "./shared_wait.ts";
import type { SharedChannel } from "./shared_channel.ts";
import {
  channelCodec,
  channelRecord,
  freezeChannel,
  thawChannel,
  zeroValueOf,
} from "./_channel_handle.ts";

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
 * @param resumer What continues the selecting code instead of a promise.
 * @returns The result at once, or a promise of it (`PARKED` with a
 * resumer).
 * @throws {Panic} `send on closed channel` when such a case is chosen.
 *
 * @example Usage
 * ```ts
 * import { Random } from "../random.ts";
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createSharedChannel } from "./_channel_handle.ts";
 * import { selectShared } from "./shared_select.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const scheduler = new Scheduler({ seed: 1, threadContext: false });
 * const member = new PoolMember(heap, 0, scheduler);
 * const codec = {
 *   byteLength: () => 8,
 *   write: (h: SharedHeap, off: number, v: unknown) =>
 *     void (h.f64[off >> 3] = v as number),
 *   read: (h: SharedHeap, off: number): unknown => h.f64[off >> 3],
 * };
 * await scheduler.run((thread) => {
 *   const a = createSharedChannel(member, 1, codec, 0);
 *   const b = createSharedChannel(member, 1, codec, 0);
 *   b.send(7, { thread });
 *   const cases = [{ recv: a }, { recv: b }];
 *   assertEquals(selectShared(member, cases, new Random(1), thread), {
 *     index: 1,
 *     value: 7,
 *     ok: true,
 *   });
 *   member.close();
 * });
 * ```
 */
export function selectShared(
  member: PoolMember,
  cases: readonly SharedCase[],
  random: Random,
  thread: GreenThread | undefined,
  resumer?: Resumer,
): SelectResult | Promise<SelectResult> {
  const n = cases.length;
  member.lock();
  const frozen = freezeAll(cases);
  // A recording notes the select's attempt on each channel, in the lock's
  // order (pool_member.ts's attemptHook).
  const hook = member.attemptHook;
  if (hook !== undefined) {
    for (const ch of frozen) {
      hook(member.heap.i32[(channelRecord(ch) >> 2) + C_TAG]);
    }
  }
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
    return perform(member, cases[chosen], chosen, thread, frozen);
  }
  if (defaultIndex !== -1) {
    for (const ch of frozen) thawChannel(ch);
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
    const kind = c.recv != null ? RECV : SEND;
    const w = newWaiter(member, kind);
    const wi = w >> 2;
    if (kind === SEND) {
      encodeValue(member, channelCodec(ch), c.value, wi + W_VALUE, true);
    }
    const i32 = heap.i32;
    i32[wi + W_CASE] = i;
    enqueue(
      i32,
      (channelRecord(ch) >> 2) + (kind === SEND ? C_SENDQ : C_RECVQ),
      w,
    );
    parked.push(w);
  }
  const rec = heap.allocControl((S_WAITERS + parked.length) * 4);
  const i32 = heap.i32;
  const si = rec >> 2;
  i32[si + S_FIRED] = -1;
  i32[si + S_TOKEN] = NO_TOKEN;
  i32[si + S_WORKER] = member.self;
  i32[si + S_COUNT] = parked.length;
  for (let k = 0; k < parked.length; k++) {
    i32[si + S_WAITERS + k] = parked[k];
    i32[(parked[k] >> 2) + W_SELECT] = rec;
  }
  for (const ch of frozen) thawChannel(ch);
  // With no cases (all nil) nothing will fire it: it parks for good.
  if (
    parked.length > 0 && pollFirst(member, member.spinner, si + S_FIRED, -1)
  ) {
    return selectOutcome(member, rec, channels, thread);
  }
  const wait = new SelectWait(member, rec, channels, thread, resumer);
  i32[si + S_TOKEN] = member.park(
    wait,
    parked.length === 0 ? "select (no cases)" : "select",
  );
  member.unlock();
  return wait.promise;
}

// Freezes the cases' channels (rings and rendezvous slots), each once (a
// channel may come twice, through one handle or two). Precondition: lock
// held.
function freezeAll(cases: readonly SharedCase[]): SharedChannel<unknown>[] {
  const frozen: SharedChannel<unknown>[] = [];
  for (const c of cases) {
    const ch = c.recv ?? c.send;
    if (ch == null) continue;
    if (frozen.some((f) => channelRecord(f) === channelRecord(ch))) continue;
    freezeChannel(ch);
    frozen.push(ch);
  }
  return frozen;
}

// Precondition: lock held, rings frozen.
function isReady(c: SharedCase): boolean {
  if (c.recv != null) return readyToRecv(c.recv);
  if (c.send != null) return readyToSend(c.send);
  return false;
}

// Performs a ready case, thaws and releases the lock. Precondition: lock
// held, rings frozen.
function perform(
  member: PoolMember,
  c: SharedCase,
  index: number,
  thread: GreenThread | undefined,
  frozen: readonly SharedChannel<unknown>[],
): SelectResult {
  const area = member.scratch;
  if (c.recv != null) {
    const ch = c.recv;
    const status = pollFrozen(ch, area); // ready: not MUST_WAIT
    for (const f of frozen) thawChannel(f);
    member.unlock();
    const ok = status === COMPLETED;
    const value = ok
      ? takeValue(member, channelCodec(ch), area)
      : zeroValueOf(ch);
    return { index, value, ok };
  }
  const ch = c.send!;
  encodeValue(member, channelCodec(ch), c.value, area, true);
  const status = offerFrozen(ch, area); // ready: not MUST_WAIT
  if (status === WAS_CLOSED) discardValue(member, channelCodec(ch), area);
  for (const f of frozen) thawChannel(f);
  member.unlock();
  if (status === WAS_CLOSED) {
    throw new Panic("send on closed channel", { thread });
  }
  return { index, value: undefined, ok: true };
}

// The outcome of a select that fired (read without the lock): frees its
// waiters and record, and the values of the sends it did not make.
function selectOutcome(
  member: PoolMember,
  rec: number,
  channels: readonly (SharedChannel<unknown> | undefined)[],
  thread: GreenThread | undefined,
): SelectResult {
  member.spinner.answered(); // if its polling ran out, the wait ends here
  const i32 = member.heap.i32;
  const si = rec >> 2;
  const index = i32[si + S_FIRED];
  let fired = 0;
  for (let k = 0; k < i32[si + S_COUNT]; k++) {
    const w = i32[si + S_WAITERS + k];
    const wi = w >> 2;
    if (i32[wi + W_CASE] === index) fired = w;
    else if (i32[wi + W_KIND] === SEND) {
      discardValue(
        member,
        channelCodec(channels[i32[wi + W_CASE]]!),
        wi + W_VALUE,
      );
    }
  }
  const wi = fired >> 2;
  const ch = channels[index]!;
  const state = i32[wi + W_STATE];
  let result: SelectResult | undefined;
  if (i32[wi + W_KIND] === RECV) {
    const ok = state !== CLOSED;
    const value = ok
      ? takeValue(member, channelCodec(ch), wi + W_VALUE)
      : zeroValueOf(ch);
    result = { index, value, ok };
  } else if (state === DONE) {
    result = { index, value: undefined, ok: true };
  } else {
    discardValue(member, channelCodec(ch), wi + W_VALUE);
  }
  // Given back after decoding: the value may be in the fired waiter.
  for (let k = 0; k < i32[si + S_COUNT]; k++) {
    dropWaiter(member, i32[si + S_WAITERS + k]);
  }
  member.freeControlLater(rec);
  if (result === undefined) {
    throw new Panic("send on closed channel", { thread });
  }
  return result;
}

// A parked select: reads which case fired, and its outcome, when woken.
class SelectWait extends SharedWait<SelectResult> {
  readonly #member: PoolMember;
  readonly #record: number;
  readonly #channels: readonly (SharedChannel<unknown> | undefined)[];

  constructor(
    member: PoolMember,
    record: number,
    channels: readonly (SharedChannel<unknown> | undefined)[],
    thread: GreenThread | undefined,
    resumer: Resumer | undefined,
  ) {
    super(thread, resumer);
    this.#member = member;
    this.#record = record;
    this.#channels = channels;
  }

  settle(): void {
    try {
      this.resolve(
        selectOutcome(this.#member, this.#record, this.#channels, this.thread),
      );
    } catch (error) {
      this.reject(error);
    }
  }
}
