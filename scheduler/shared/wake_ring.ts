// Each worker's wake ring: the tokens of its parked operations that other
// workers have completed, and a doorbell that says new ones arrived.
//
// A waker pushes the token with the lock held (the ring lives in the shared
// heap like every shared object), and rings the doorbell after releasing
// the lock. The owner drains the ring when the doorbell changes.
//
// The doorbell protocol cannot lose a wake-up: the owner reads the doorbell
// before it looks at the ring and then waits only while the doorbell still
// has the value it read (Atomics.waitAsync compares first); the waker
// pushes before it increments the doorbell. `sleeping` only saves a notify
// when the owner is awake, and says which word to notify: the doorbell,
// where the event loop's waitAsync waits, or NAP, where an owner sleeping
// in place (`block`) waits. That owner marks itself IN_PLACE before it
// reads the doorbell a last time, and the waker increments the doorbell
// before it reads the mark: one of them sees the other.
//
// The worker table and its rings lie in the control arena, which every
// worker's views cover from the start (heap.ts): nothing here covers.
//
// Invariants (lock held):
//   0 <= tail - head <= cap; slots[(head .. tail-1) % cap] are the tokens,
//   oldest first. The ring doubles when full, so a push never fails.

import { Global, type SharedHeap } from "./heap.ts";
import type { Spinner } from "./_spinner.ts";

// Words of a worker's entry in the worker table.
const DOORBELL = 0;
const SLEEPING = 1;
const HEAD = 2;
const TAIL = 3;
const CAP = 4;
const SLOTS = 5;
// What the owner sleeps in place on (`block`): its own word, so that the
// notify that ends that sleep leaves the event loop's waitAsync on the
// doorbell armed, rather than resolving it too for nothing.
const NAP = 6;
// SLEEPING's values: awake, asleep in the event loop, asleep in place.
const AWAKE = 0;
const IN_LOOP = 1;
const IN_PLACE = 2;
// One 64-byte cache line per worker: a waker writes one worker's doorbell
// and tail without disturbing the others' lines.
const ENTRY_WORDS = 16;
const INITIAL_CAP = 256;

function noop(): void {}

/**
 * Makes the worker table of a run: one wake ring per worker. Precondition:
 * the lock is held (or no other worker has the heap yet).
 *
 * @param heap The run's heap.
 * @param workers How many workers the run has.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import { createWakeRings, WakeRing } from "./wake_ring.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 2);
 * const ring = new WakeRing(heap, 1);
 * heap.lock();
 * WakeRing.push(heap, 1, 42);
 * heap.unlock();
 * assertEquals(ring.drain(), [42]);
 * ```
 */
export function createWakeRings(heap: SharedHeap, workers: number): void {
  const block = heap.allocControl(workers * ENTRY_WORDS * 4 + 56);
  const table = (block + 63) & ~63; // never freed: the run's to its end
  heap.i32[Global.Workers] = table;
  for (let w = 0; w < workers; w++) {
    const e = (table >> 2) + w * ENTRY_WORDS;
    heap.i32[e + CAP] = INITIAL_CAP;
    heap.i32[e + SLOTS] = heap.allocControl(INITIAL_CAP * 4);
  }
}

function entryOf(heap: SharedHeap, worker: number): number {
  return (heap.i32[Global.Workers] >> 2) + worker * ENTRY_WORDS;
}

/**
 * One worker's wake ring, seen from that worker (the consumer); pushing
 * and ringing are static, as any worker does them.
 */
export class WakeRing {
  readonly #heap: SharedHeap;
  readonly #entry: number;

  /**
   * The ring of `worker`.
   *
   * @param heap The run's heap.
   * @param worker The owning worker.
   */
  constructor(heap: SharedHeap, worker: number) {
    this.#heap = heap;
    this.#entry = entryOf(heap, worker);
  }

  /**
   * Queues `token` on `worker`'s ring. Precondition: the lock is held; ring
   * the doorbell after releasing it.
   *
   * @param heap The run's heap.
   * @param worker The worker whose operation completed.
   * @param token The operation's token on that worker.
   */
  static push(heap: SharedHeap, worker: number, token: number): void {
    const e = entryOf(heap, worker);
    let i32 = heap.i32;
    const head = i32[e + HEAD];
    const tail = i32[e + TAIL];
    let cap = i32[e + CAP];
    if (tail - head === cap) {
      // Full: copy the tokens, oldest first, into a ring twice the size.
      const old = i32[e + SLOTS] >> 2;
      const slots = heap.allocControl(cap * 8);
      i32 = heap.i32;
      for (let i = 0; i < cap; i++) {
        i32[(slots >> 2) + i] = i32[old + ((head + i) % cap)];
      }
      heap.freeControl(old << 2);
      i32[e + SLOTS] = slots;
      i32[e + HEAD] = 0;
      i32[e + TAIL] = cap;
      cap *= 2;
      i32[e + CAP] = cap;
      return WakeRing.push(heap, worker, token);
    }
    i32[(i32[e + SLOTS] >> 2) + (tail % cap)] = token;
    Atomics.store(i32, e + TAIL, tail + 1);
  }

  /**
   * Tells `worker` that its ring has news. Call without the lock.
   *
   * @param heap The run's heap.
   * @param worker The worker to wake.
   */
  static ring(heap: SharedHeap, worker: number): void {
    const e = entryOf(heap, worker);
    Atomics.add(heap.i32, e + DOORBELL, 1);
    const sleeping = Atomics.load(heap.i32, e + SLEEPING);
    if (sleeping === IN_LOOP) {
      Atomics.notify(heap.i32, e + DOORBELL);
    } else if (sleeping === IN_PLACE) {
      Atomics.store(heap.i32, e + NAP, 1);
      Atomics.notify(heap.i32, e + NAP);
    }
  }

  /**
   * The doorbell's current value, to wait on.
   *
   * @returns The value.
   */
  doorbell(): number {
    return Atomics.load(this.#heap.i32, this.#entry + DOORBELL);
  }

  /**
   * Whether the ring holds tokens (read without the lock: a hint).
   *
   * @returns True if a drain would find tokens.
   */
  pending(): boolean {
    const i32 = this.#heap.i32;
    return Atomics.load(i32, this.#entry + HEAD) !==
      Atomics.load(i32, this.#entry + TAIL);
  }

  /**
   * Takes every queued token, oldest first. Takes the lock itself.
   *
   * @returns The tokens.
   */
  drain(): number[] {
    const heap = this.#heap;
    const e = this.#entry;
    heap.lock();
    const i32 = heap.i32;
    const head = i32[e + HEAD];
    const tail = i32[e + TAIL];
    const cap = i32[e + CAP];
    const slots = i32[e + SLOTS] >> 2;
    const tokens: number[] = new Array(tail - head);
    for (let i = head; i < tail; i++) tokens[i - head] = i32[slots + (i % cap)];
    i32[e + HEAD] = 0;
    i32[e + TAIL] = 0;
    heap.unlock();
    return tokens;
  }

  /**
   * Polls the doorbell for as long as `spinner` says: a wake often comes
   * within microseconds when the other side is busy, sooner than a sleep
   * ends.
   *
   * @param seen A doorbell value read before checking the ring.
   * @param spinner The polling budget (the owner's idle one).
   * @returns True if the doorbell changed.
   */
  spin(seen: number, spinner: Spinner): boolean {
    return spinner.whileEquals(this.#heap.i32, this.#entry + DOORBELL, seen);
  }

  /**
   * Waits with Atomics.waitAsync until the doorbell differs from `seen`.
   * Wakers notify only a ring marked asleep (`sleep(true)`): a busy or
   * spinning owner sees the doorbell itself.
   *
   * @param seen A doorbell value read before checking the ring.
   * @returns `undefined` if it differs already, else a promise that
   * fulfils when it changes.
   */
  wait(seen: number): Promise<void> | undefined {
    const result = Atomics.waitAsync(
      this.#heap.i32,
      this.#entry + DOORBELL,
      seen,
    );
    return result.async ? result.value.then(noop) : undefined;
  }

  /**
   * Sleeps in place until the doorbell differs from `seen` or `ms` pass:
   * Atomics.wait, which blocks this thread, its event loop included, and
   * which a notify ends within a few microseconds (the event loop's
   * waitAsync takes 20 to 60 here). Marks the ring asleep in place while
   * it sleeps, and awake after.
   *
   * @param seen A doorbell value read before checking the ring.
   * @param ms The longest sleep, in milliseconds.
   * @returns True if the doorbell changed (or had already), false if the
   * time ran out.
   */
  block(seen: number, ms: number): boolean {
    const i32 = this.#heap.i32;
    const e = this.#entry;
    Atomics.store(i32, e + NAP, 0);
    Atomics.store(i32, e + SLEEPING, IN_PLACE);
    // A waker that rang before the mark was seen does not notify: the
    // doorbell has moved, then (the waker rings before it reads the mark).
    if (Atomics.load(i32, e + DOORBELL) === seen) {
      Atomics.wait(i32, e + NAP, 0, ms);
    }
    Atomics.store(i32, e + SLEEPING, AWAKE);
    return Atomics.load(i32, e + DOORBELL) !== seen;
  }

  /**
   * Marks the owner asleep (wakers then notify) or awake.
   *
   * @param asleep Whether the owner is about to sleep.
   */
  sleep(asleep: boolean): void {
    Atomics.store(
      this.#heap.i32,
      this.#entry + SLEEPING,
      asleep ? IN_LOOP : AWAKE,
    );
  }
}
