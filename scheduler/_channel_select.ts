// Select's side of a channel (select.ts): performing a case found ready, and
// the wait queues a parked select's waiters join. Only select calls these
// (and tests that look at a queue); programs use Channel's public methods.
//
// Channel keeps its state in #private fields and lends this module closures
// over them once, from a static block, when channel.ts is evaluated; this
// module exports them as they are (bindings that importers only read,
// assigned by lendChannelSelect alone). So the fields stay private to the
// class, and a call costs what a method call did (see _thread_control.ts).
//
// The invariants these keep are channel.ts's.

import type { Channel } from "./channel.ts";
import type { GreenThread } from "./green_thread.ts";
import type { WaitQueue } from "./_waiter.ts";

/** What Channel lends this module (see the top of the file). */
export interface ChannelSelect {
  recvInto: <T>(
    ch: Channel<T>,
    out: { value: unknown; ok: boolean },
  ) => void;
  sendNow: <T>(
    ch: Channel<T>,
    value: T,
    thread: GreenThread | undefined,
  ) => void;
  receiversOf: <T>(ch: Channel<T>) => WaitQueue;
  sendersOf: <T>(ch: Channel<T>) => WaitQueue;
}

/**
 * Takes Channel's closures; only its static block calls this.
 *
 * @param closures The closures.
 */
export function lendChannelSelect(closures: ChannelSelect): void {
  ({ recvInto, sendNow, receiversOf, sendersOf } = closures);
}

/**
 * Receives from `ch` at once into `out` (select's first pass): the value
 * and whether it was sent rather than produced by a close. Precondition:
 * `ch.canRecv()`.
 *
 * @typeParam T The type of the values carried.
 * @param ch The channel.
 * @param out Where the value and `ok` go.
 *
 * @example Usage
 * ```ts
 * import { Channel } from "./channel.ts";
 * import { recvInto } from "./_channel_select.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const ch = new Channel<number>(1, { zero: 0 });
 * ch.send(3);
 * const out = { value: undefined as unknown, ok: false };
 * recvInto(ch, out);
 * assertEquals(out, { value: 3, ok: true });
 * ch.close();
 * recvInto(ch, out);
 * assertEquals(out, { value: 0, ok: false });
 * ```
 */
export let recvInto: ChannelSelect["recvInto"];

/**
 * Sends on `ch` at once (select's first pass). Precondition:
 * `ch.canSend()`.
 *
 * @typeParam T The type of the values carried.
 * @param ch The channel.
 * @param value The value.
 * @param thread The sending thread, named by a panic.
 * @throws {Panic} `send on closed channel`.
 *
 * @example Usage
 * ```ts
 * import { Channel } from "./channel.ts";
 * import { sendNow } from "./_channel_select.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const ch = new Channel<string>(1);
 * sendNow(ch, "a", undefined);
 * assertEquals(ch.recv(), "a");
 * ```
 */
export let sendNow: ChannelSelect["sendNow"];

/**
 * The queue of `ch`'s parked receivers (select's second pass).
 *
 * @typeParam T The type of the values carried.
 * @param ch The channel.
 * @returns The queue.
 *
 * @example Usage
 * ```ts
 * import { Channel } from "./channel.ts";
 * import { receiversOf, sendersOf } from "./_channel_select.ts";
 * import { assert } from "@std/assert";
 *
 * const ch = new Channel<number>();
 * ch.recv();
 * assert(receiversOf(ch).head !== null && sendersOf(ch).head === null);
 * ```
 */
export let receiversOf: ChannelSelect["receiversOf"];

/**
 * The queue of `ch`'s parked senders (select's second pass).
 *
 * @typeParam T The type of the values carried.
 * @param ch The channel.
 * @returns The queue.
 *
 * @example Usage
 * ```ts
 * import { Channel } from "./channel.ts";
 * import { receiversOf, sendersOf } from "./_channel_select.ts";
 * import { assert } from "@std/assert";
 *
 * const ch = new Channel<number>();
 * ch.send(1);
 * assert(sendersOf(ch).head !== null && receiversOf(ch).head === null);
 * ```
 */
export let sendersOf: ChannelSelect["sendersOf"];
