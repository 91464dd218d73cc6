/**
 * The limits that keep a worker from being starved: how long a client may
 * take to send, how long a connection may sit idle and a call may run, how
 * many connections and calls it may hold, and how many tensor bytes a call
 * may bring. One table, {@linkcode WORKER_LIMIT_FLAGS}, names each limit's
 * `worker` flag, its unit and its default; the command line, its usage
 * text, README.md and the server's refusals all read it.
 *
 * Why the defaults are what they are:
 *
 * - 4 calls × 128 MiB of request tensors is 512 MiB, half of the 1 GiB
 *   memory limit of the worker pods in deploy/k8s/workers.yaml; the other
 *   half is for the replies, the program's parameters and Deno itself
 *   (tests/deploy/k8s_test.ts checks that they agree).
 * - 128 connections stay well below a common open-file limit of 256, and
 *   16 per client address leave room for 8 masters behind one address.
 * - 30 s to send a request admits 128 MiB at 4.5 MB/s; 60 s of idleness is
 *   far longer than a master waits between calls; 10 min bounds a call
 *   whose program stalls, and is longer than any call the benchmarks make.
 *
 * @module
 */

import { ProgramError } from "../core/errors.ts";

/**
 * What a worker lets its clients hold, and for how long. Each field is the
 * `worker` flag of the same name (`maxCalls` is `--max-calls`).
 */
export interface WorkerLimits {
  /**
   * Milliseconds a client may take to send: after connecting, its TLS
   * handshake and HTTP/2 preface; after a request's headers, the request's
   * whole body. A connection late with its preface is closed; a request
   * late with its body ends with `deadline_exceeded`.
   */
  readTimeoutMs: number;
  /**
   * Milliseconds a connection may stay open with no request in flight
   * before it is closed (HTTP/2 GOAWAY). A request's headers therefore come
   * within this time: HTTP/2 sends a header block whole, so headers sent
   * byte by byte hold no request open.
   */
  idleTimeoutMs: number;
  /**
   * Milliseconds a call may take from its headers to the end of its reply.
   * A call past it ends with `deadline_exceeded`, saying so.
   */
  callTimeoutMs: number;
  /**
   * Calls served at once; a call beyond them is refused at once with
   * `resource_exhausted` (not queued), before any of its tensors is read.
   */
  maxCalls: number;
  /** Connections held at once, from all clients. */
  maxConns: number;
  /** Connections held at once from one client address. */
  maxConnsPerClient: number;
  /**
   * Bytes of tensors one call may send (each tensor also counts 64 bytes),
   * checked against each tensor's header before its bytes are buffered.
   */
  maxCallBytes: number;
}

/** How a limit's flag value is written. */
export type WorkerLimitUnit = "duration" | "count" | "bytes";

/** One limit: its flag, its field, its unit and what it bounds. */
export interface WorkerLimitFlag {
  /** The flag without dashes: `max-calls`. */
  readonly flag: string;
  /** The field of {@linkcode WorkerLimits} it sets. */
  readonly field: keyof WorkerLimits;
  /** How its value is written. */
  readonly unit: WorkerLimitUnit;
  /** What it bounds, for the usage text. */
  readonly summary: string;
}

/**
 * The defaults of a worker's limits (see the module's documentation for
 * why).
 *
 * @example Usage
 * ```ts
 * import { DEFAULT_WORKER_LIMITS } from "./worker_limits.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(DEFAULT_WORKER_LIMITS.maxCalls, 4);
 * assertEquals(DEFAULT_WORKER_LIMITS.maxCallBytes, 128 << 20);
 * ```
 */
export const DEFAULT_WORKER_LIMITS: Readonly<WorkerLimits> = Object.freeze({
  readTimeoutMs: 30_000,
  idleTimeoutMs: 60_000,
  callTimeoutMs: 600_000,
  maxCalls: 4,
  maxConns: 128,
  maxConnsPerClient: 16,
  maxCallBytes: 128 << 20,
});

/**
 * Every limit's flag, in the order the usage text lists them.
 *
 * @example Usage
 * ```ts
 * import { WORKER_LIMIT_FLAGS } from "./worker_limits.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const calls = WORKER_LIMIT_FLAGS.find((f) => f.field === "maxCalls");
 * assertEquals(calls?.flag, "max-calls");
 * ```
 */
export const WORKER_LIMIT_FLAGS: readonly WorkerLimitFlag[] = Object.freeze(
  [
    {
      flag: "max-calls",
      field: "maxCalls",
      unit: "count",
      summary: "calls served at once, more refused",
    },
    {
      flag: "max-call-bytes",
      field: "maxCallBytes",
      unit: "bytes",
      summary: "tensor bytes one call may send",
    },
    {
      flag: "max-conns",
      field: "maxConns",
      unit: "count",
      summary: "connections held at once",
    },
    {
      flag: "max-conns-per-client",
      field: "maxConnsPerClient",
      unit: "count",
      summary: "connections held at once from one address",
    },
    {
      flag: "read-timeout",
      field: "readTimeoutMs",
      unit: "duration",
      summary: "the time to send the HTTP/2 preface, and each request body",
    },
    {
      flag: "idle-timeout",
      field: "idleTimeoutMs",
      unit: "duration",
      summary: "closes a connection with no request in flight after it",
    },
    {
      flag: "call-timeout",
      field: "callTimeoutMs",
      unit: "duration",
      summary: "ends a call still running after it",
    },
  ] as const,
);

/**
 * A limit's flag whose value does not parse or is out of range; the CLI
 * prints it as one `error:` line.
 *
 * @example Usage
 * ```ts
 * import { parseWorkerLimits, WorkerLimitError } from "./worker_limits.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * const e = assertThrows(
 *   () => parseWorkerLimits({ "idle-timeout": "soon" }),
 *   WorkerLimitError,
 * );
 * assertEquals([e.flag, e.value], ["idle-timeout", "soon"]);
 * ```
 */
export class WorkerLimitError extends ProgramError {
  /** The flag without dashes. */
  readonly flag: string;
  /** The value as given. */
  readonly value: string;

  /**
   * Makes the error `--flag: "value" reason`.
   *
   * @param flag The flag without dashes.
   * @param value The value as given.
   * @param reason What is wrong with it.
   */
  constructor(flag: string, value: string, reason: string) {
    super(`--${flag}: "${value}" ${reason}`);
    this.name = "WorkerLimitError";
    this.flag = flag;
    this.value = value;
  }
}

/**
 * The limits the flags ask for, each flag not given at its default.
 * Durations are written `500ms`, `30s`, `1.5m` or `2h`; sizes `4096`,
 * `512KiB`, `128MiB` or `1GiB`; counts as whole numbers. Every value is
 * positive.
 *
 * @param flags Flag values by flag name without dashes (`max-calls`);
 * undefined for a flag not given. Other names are ignored.
 * @returns The limits.
 * @throws {WorkerLimitError} If a value does not parse or is out of range.
 *
 * @example Usage
 * ```ts
 * import { DEFAULT_WORKER_LIMITS, parseWorkerLimits } from "./worker_limits.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const limits = parseWorkerLimits({ "max-calls": "8", "call-timeout": "1.5m" });
 * assertEquals(limits.maxCalls, 8);
 * assertEquals(limits.callTimeoutMs, 90_000);
 * assertEquals(limits.maxConns, DEFAULT_WORKER_LIMITS.maxConns);
 * ```
 */
export function parseWorkerLimits(
  flags: Readonly<Record<string, string | undefined>>,
): WorkerLimits {
  const limits: WorkerLimits = { ...DEFAULT_WORKER_LIMITS };
  for (const { flag, field, unit } of WORKER_LIMIT_FLAGS) {
    const text = flags[flag];
    if (text !== undefined) limits[field] = PARSERS[unit](flag, text);
  }
  return limits;
}

/**
 * A limit's value as its flag takes it: `30s`, `128MiB`, `4`.
 *
 * @param unit The limit's unit.
 * @param value Its value (milliseconds for a duration, bytes for a size).
 * @returns The shortest text in the largest unit that writes it exactly.
 *
 * @example Usage
 * ```ts
 * import { formatLimit } from "./worker_limits.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(formatLimit("duration", 600_000), "10m");
 * assertEquals(formatLimit("duration", 1_500), "1500ms");
 * assertEquals(formatLimit("bytes", 128 << 20), "128MiB");
 * assertEquals(formatLimit("count", 16), "16");
 * ```
 */
export function formatLimit(unit: WorkerLimitUnit, value: number): string {
  const scale = unit === "duration"
    ? DURATION_UNITS
    : unit === "bytes"
    ? SIZE_UNITS
    : [];
  for (const [suffix, size] of scale) {
    if (value >= size && value % size === 0) return `${value / size}${suffix}`;
  }
  return String(value);
}

// Largest first, so formatLimit picks the largest exact unit.
const DURATION_UNITS: readonly (readonly [string, number])[] = [
  ["h", 3_600_000],
  ["m", 60_000],
  ["s", 1_000],
  ["ms", 1],
];
const SIZE_UNITS: readonly (readonly [string, number])[] = [
  ["GiB", 1 << 30],
  ["MiB", 1 << 20],
  ["KiB", 1 << 10],
];

// The longest a timer can wait: setTimeout takes a signed 32-bit delay.
const MAX_DURATION_MS = 2 ** 31 - 1;
// A size must be an exact Number; 1 PiB is more than any budget.
const MAX_BYTES = 2 ** 50;

const PARSERS: Record<WorkerLimitUnit, (flag: string, text: string) => number> =
  {
    duration: parseDuration,
    count: parseCount,
    bytes: parseBytes,
  };

/**
 * A duration flag's value in milliseconds: `500ms`, `30s`, `1.5m`, `2h`,
 * from 1 ms to about 596 h (what a timer can wait).
 *
 * @param flag The flag without dashes, for the message.
 * @param text Its value.
 * @returns Milliseconds.
 * @throws {WorkerLimitError} If the text is no such duration.
 *
 * @example Usage
 * ```ts
 * import { parseDuration } from "./worker_limits.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(parseDuration("drain-timeout", "1.5m"), 90_000);
 * ```
 */
export function parseDuration(flag: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text);
  if (match === null) {
    throw new WorkerLimitError(
      flag,
      text,
      "is not a duration (500ms, 30s, 1.5m, 2h)",
    );
  }
  const unit = DURATION_UNITS.find(([suffix]) => suffix === match[2])!;
  const ms = Math.round(Number(match[1]) * unit[1]);
  if (ms < 1) throw new WorkerLimitError(flag, text, "is shorter than 1ms");
  if (ms > MAX_DURATION_MS) {
    throw new WorkerLimitError(flag, text, "is longer than 596h");
  }
  return ms;
}

function parseCount(flag: string, text: string): number {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(Number.isSafeInteger(n) && n >= 1)) {
    throw new WorkerLimitError(flag, text, "is not a whole number from 1");
  }
  return n;
}

function parseBytes(flag: string, text: string): number {
  const match = /^(\d+)(KiB|MiB|GiB)?$/.exec(text);
  if (match === null) {
    throw new WorkerLimitError(
      flag,
      text,
      "is not a size (4096, 512KiB, 128MiB, 1GiB)",
    );
  }
  const unit = match[2] === undefined
    ? 1
    : SIZE_UNITS.find(([suffix]) => suffix === match[2])![1];
  const bytes = Number(match[1]) * unit;
  if (bytes < 1) throw new WorkerLimitError(flag, text, "is not above 0");
  if (bytes > MAX_BYTES) {
    throw new WorkerLimitError(flag, text, "is more than 1048576GiB");
  }
  return bytes;
}
