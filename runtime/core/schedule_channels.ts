// The indexes a recorded or replayed run gives its channels: a channel's
// index names it in the record and picks its words in the gates' counters
// (schedule_counters.ts). A shared channel carries its index in its tag's
// high bits, so that every worker's handle on it finds the same one; a
// channel of one worker's keeps it in that worker's map.
//
// Invariants:
//   A channel's index is given once, by its creator, before the channel
//   is shared.

import type { Channel } from "../../scheduler/channel.ts";
import { SharedChannel } from "../../scheduler/shared/shared_channel.ts";
import {
  channelTag,
  setChannelTag,
} from "../../scheduler/shared/_channel_handle.ts";

// Tag bits below this are the runtime's own (a channel's dtype).
const TAG_SHIFT = 8;

/**
 * One worker's channel indexes.
 *
 * @example Usage
 * ```ts
 * import { ScheduleChannels } from "./schedule_channels.ts";
 * import { Channel } from "../../scheduler/channel.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const channels = new ScheduleChannels();
 * const ch = new Channel<unknown>(1);
 * assertEquals(channels.indexOf(ch), -1);
 * channels.give(ch, 3);
 * assertEquals(channels.indexOf(ch), 3);
 * ```
 */
export class ScheduleChannels {
  readonly #local = new WeakMap<Channel<unknown>, number>();

  /**
   * Gives a channel its index.
   *
   * @param ch The channel, not yet shared with another worker.
   * @param index Its index (0 or more).
   */
  give(ch: Channel<unknown> | SharedChannel<unknown>, index: number): void {
    if (ch instanceof SharedChannel) {
      setChannelTag(ch, (channelTag(ch) & 0xff) | ((index + 1) << TAG_SHIFT));
    } else this.#local.set(ch, index);
  }

  /**
   * A channel's index, or -1 for one no `channel_create` made (a timer's).
   *
   * @param ch The channel.
   * @returns Its index.
   */
  indexOf(ch: Channel<unknown> | SharedChannel<unknown>): number {
    const local = this.#local.get(ch as Channel<unknown>);
    if (local !== undefined) return local;
    if (ch instanceof SharedChannel) return indexOfTag(channelTag(ch));
    return -1;
  }
}

/**
 * The index a shared channel's tag carries, or -1 for none.
 *
 * @param tag The channel's tag.
 * @returns Its index.
 *
 * @example Usage
 * ```ts
 * import { indexOfTag } from "./schedule_channels.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(indexOfTag(0x0305), 2); // index 2 above dtype byte 5
 * assertEquals(indexOfTag(0x05), -1);
 * ```
 */
export function indexOfTag(tag: number): number {
  return (tag >>> TAG_SHIFT) - 1;
}
