// The events of a run trace, in the Chrome Trace Event format that
// Perfetto and chrome://tracing open (pid = worker, tid = green thread or
// a device track), and the tracks that are not threads.

/** One event of the Chrome Trace Event format (times in µs). */
export interface TraceEvent {
  /** The event's name (a span's label). */
  name: string;
  /** X: a span; i: an instant; s/f: a flow's ends; M: metadata. */
  ph: "X" | "i" | "s" | "f" | "M";
  /** Microseconds since the trace began. */
  ts: number;
  /** The worker. */
  pid: number;
  /** The green thread, or a device track (negative). */
  tid: number;
  /** Its category (none for metadata). */
  cat?: TraceCategory;
  /** A span's length in µs. */
  dur?: number;
  /** A flow's id. */
  id?: number;
  /** A flow end's binding point: "e", the enclosing span. */
  bp?: "e";
  /** An instant's scope: "t", its thread. */
  s?: "t";
  /** Details shown with the event. */
  args?: Record<string, unknown>;
}

/** An event's category, which viewers can filter on. */
export type TraceCategory =
  | "thread"
  | "wait"
  | "op"
  | "flow"
  | "select"
  | "panic"
  | "gpu"
  | "rpc";

/**
 * The GPU track's thread id (thread ids are positive).
 *
 * @example Usage
 * ```ts
 * import { GPU_TRACK } from "./trace_event.ts";
 * import { assert } from "@std/assert";
 *
 * assert(GPU_TRACK < 0);
 * ```
 */
export const GPU_TRACK = -1;

/**
 * The track of a worker's RPC calls, which run beside their threads.
 *
 * @example Usage
 * ```ts
 * import { RPC_TRACK } from "./trace_event.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(RPC_TRACK, -2);
 * ```
 */
export const RPC_TRACK = -2;

/**
 * The track of a worker's help with another worker's split kernel (rows of
 * a large matrix product or elementwise op), which no thread of its runs.
 *
 * @example Usage
 * ```ts
 * import { KERNEL_TRACK } from "./trace_event.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(KERNEL_TRACK, -3);
 * ```
 */
export const KERNEL_TRACK = -3;
