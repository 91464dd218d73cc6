// Resumers: how a runtime's threads wait without a promise.
//
// A parked operation normally returns a promise, which its thread awaits.
// Per parked thread that is the promise, its resolve function and the
// suspended async function that awaits it: about 670 bytes, most of a
// parked thread's cost. An interpreter keeps its own continuation (which op
// to finish, in which scope) and needs none of that. It names a Resumer in
// the operation's options; an operation that must wait then returns
// `PARKED` and later hands its outcome to the resumer.
//
// Invariants:
//   A parked operation hands its outcome over exactly once (resume or
//   fail), or never when its run ends first, as a promise would settle.
//   The hand-over runs as a microtask queued when the operation completes:
//   never inside the waker, and in the order its promise would have
//   resumed an awaiting thread, so threads interleave as they would with
//   promises.

/**
 * Takes the outcome of a parked operation in place of a promise: what a
 * runtime that keeps its own continuations names as the `resumer` option of
 * channel operations (shared ones too), `select` and `sleep`.
 *
 * @example Usage
 * ```ts
 * import { Channel, PARKED, type Resumer } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const got: unknown[] = [];
 * const resumer: Resumer = { resume: (v) => got.push(v), fail: () => {} };
 * const ch = new Channel<number>();
 * assertEquals(ch.recv({ resumer }), PARKED);
 * ch.send(4);
 * await Promise.resolve();
 * assertEquals(got, [4]);
 * ```
 */
export interface Resumer {
  /** Continues after the operation completed with `value`. */
  resume(value: unknown): void;
  /** Continues after the operation failed (a panic, an abort). */
  fail(error: unknown): void;
}

/**
 * What an operation given a `resumer` returns when it parks: a promise that never settles, which only identity tells apart.
 * The outcome goes to the resumer instead.
 */
export const PARKED: Promise<never> = new Promise(() => {});

/** Where a parked operation's outcome goes: a promise's resolve, or a Resumer. */
export type Settle<T> = ((value: T) => void) | Resumer;

/**
 * Hands `value` to `to`: resolves its promise, or queues the resumer's
 * `resume` (one microtask, as the promise's reaction would be).
 *
 * @param to The operation's resolve function or resumer.
 * @param value The outcome.
 */
export function settle<T>(to: Settle<T>, value: T): void {
  if (typeof to === "function") to(value);
  else resumeSoon(to, value);
}

/**
 * Fails `to` with `error`: rejects its promise (through the resolve
 * function, with a rejected promise, as only that is kept), or queues the
 * resumer's `fail`.
 *
 * @param to The operation's resolve function or resumer.
 * @param error Why it failed.
 */
export function settleWithError<T>(to: Settle<T>, error: unknown): void {
  if (typeof to === "function") to(Promise.reject(error) as T);
  else failSoon(to, error);
}

// The closures live in functions of their own: a function that makes one
// allocates a context for what it captures on every call, whichever branch
// runs, and settle() is on every channel hand-off's path.

function resumeSoon(to: Resumer, value: unknown): void {
  queueMicrotask(() => to.resume(value));
}

function failSoon(to: Resumer, error: unknown): void {
  queueMicrotask(() => to.fail(error));
}
