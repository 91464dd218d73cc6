// A recorded or replayed run's schedule gate (`--record`, `--replay`;
// docs/architecture.md §4, Record and replay): what every channel op of
// such a run passes before and after its attempt. Each worker of the run
// has one, a recorder (schedule_recorder.ts) or a replayer
// (schedule_replayer.ts); they share their counters
// (schedule_counters.ts). A pool gathers a recording's entries
// (record_entries.ts) and builds the record (record_building.ts); a
// replay that stalls names why (replay_stall.ts).
//
// Invariants:
//   Every worker of a run has a gate of the same mode, over the same
//   shared counters.

import type { ScheduleRecorder } from "./schedule_recorder.ts";
import type { ScheduleReplayer } from "./schedule_replayer.ts";

export type { ScheduleShared } from "./schedule_counters.ts";

/**
 * One worker's recorder or replayer of the run's channel order: `mode`
 * tells which.
 *
 * @example Usage
 * ```ts
 * import type { ScheduleGate } from "./schedule_gate.ts";
 * import { ScheduleRecorder } from "./schedule_recorder.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gate: ScheduleGate = new ScheduleRecorder(0, 1);
 * assertEquals(gate.mode, "record");
 * ```
 */
export type ScheduleGate = ScheduleRecorder | ScheduleReplayer;

/**
 * Thrown by an op whose thread must wait for its turn: the block runner
 * awaits `promise`, then runs the op again.
 *
 * @example Usage
 * ```ts
 * import { TurnWait } from "./schedule_gate.ts";
 * import { assert } from "@std/assert";
 *
 * const wait = new TurnWait(Promise.resolve());
 * assert(wait.promise instanceof Promise);
 * ```
 */
export class TurnWait {
  /** @param promise Settles when the thread's turn may have come. */
  constructor(readonly promise: Promise<unknown>) {}
}

/** The message a worker posts to wake another worker's bells. */
export const TURN_MESSAGE = 2;
