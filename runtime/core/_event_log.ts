// A tracer's events as they are recorded: columns of typed arrays rather
// than an object per event, so that recording one is a few stores and a
// long trace does not fill the heap with objects that the collector must
// copy while the run goes on. Objects are made once, at the end.
//
// Invariants: rows 0..length-1 are recorded events; every column has the
// same capacity, doubled when full; names and categories are indices into
// their tables; `args` holds the few rows with details beyond an op's
// block and index.

import type { TraceCategory, TraceEvent } from "./trace_event.ts";

const PHASES = ["X", "i", "s", "f"] as const;
/** A phase's code: X a span, i an instant, s/f a flow's ends. */
export const SPAN = 0, INSTANT = 1, FLOW_START = 2, FLOW_END = 3;

/** The categories, by code. */
export const CATEGORIES: readonly TraceCategory[] = [
  "thread",
  "wait",
  "op",
  "flow",
  "select",
  "panic",
  "gpu",
  "rpc",
];

const CATEGORY_CODES = new Map<string, number>(
  CATEGORIES.map((c, i) => [c, i]),
);
const OP = CATEGORY_CODES.get("op")!;

/**
 * One worker's recorded events, in columns.
 *
 * @example Usage
 * ```ts
 * import { EventLog, SPAN } from "./_event_log.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const log = new EventLog();
 * log.add(SPAN, "op", "print", 1, 2, 7, 0, 0, 3);
 * assertEquals(log.toEvents(0), [{
 *   name: "print", cat: "op", ph: "X", ts: 1, dur: 2, pid: 0, tid: 7,
 *   args: { block: 0, index: 3 },
 * }]);
 * ```
 */
export class EventLog {
  #length = 0;
  #phase = new Uint8Array(1024);
  #category = new Uint8Array(1024);
  #name = new Int32Array(1024);
  #tid = new Int32Array(1024);
  #ts = new Float64Array(1024);
  #dur = new Float64Array(1024);
  // A flow's id; an op span's block and index (a0, a1).
  #id = new Float64Array(1024);
  #a0 = new Int32Array(1024);
  #a1 = new Int32Array(1024);
  readonly #args = new Map<number, Record<string, unknown>>();
  readonly #names: string[] = [];
  readonly #nameCodes = new Map<string, number>();

  /** How many events are recorded. */
  get length(): number {
    return this.#length;
  }

  /**
   * Records an event.
   *
   * @param phase SPAN, INSTANT, FLOW_START or FLOW_END.
   * @param category Its category.
   * @param name Its name.
   * @param ts When (µs).
   * @param dur A span's length (µs), else 0.
   * @param tid Its track.
   * @param id A flow's id, else 0.
   * @param a0 An op span's block, else 0.
   * @param a1 An op span's index, else 0.
   * @returns Its row, for {@linkcode EventLog.prototype.setArgs}.
   */
  add(
    phase: number,
    category: TraceCategory,
    name: string,
    ts: number,
    dur: number,
    tid: number,
    id: number,
    a0: number,
    a1: number,
  ): number {
    const i = this.#length;
    if (i === this.#phase.length) this.#grow();
    this.#phase[i] = phase;
    this.#category[i] = CATEGORY_CODES.get(category)!;
    this.#name[i] = this.#code(name);
    this.#ts[i] = ts;
    this.#dur[i] = dur;
    this.#tid[i] = tid;
    this.#id[i] = id;
    this.#a0[i] = a0;
    this.#a1[i] = a1;
    this.#length = i + 1;
    return i;
  }

  /**
   * Gives row `row` its details.
   *
   * @param row The row.
   * @param args The details.
   */
  setArgs(row: number, args: Record<string, unknown>): void {
    this.#args.set(row, args);
  }

  /**
   * The events as objects of the Chrome Trace Event format.
   *
   * @param pid The worker they belong to.
   * @returns The events, in recording order.
   */
  toEvents(pid: number): TraceEvent[] {
    const events: TraceEvent[] = new Array(this.#length);
    for (let i = 0; i < this.#length; i++) {
      const ph = PHASES[this.#phase[i]];
      const e: TraceEvent = {
        name: this.#names[this.#name[i]],
        cat: CATEGORIES[this.#category[i]],
        ph,
        ts: this.#ts[i],
        pid,
        tid: this.#tid[i],
      };
      if (ph === "X") e.dur = this.#dur[i];
      else if (ph === "i") e.s = "t";
      else e.id = this.#id[i];
      if (ph === "f") e.bp = "e";
      const args = this.#args.get(i);
      if (args !== undefined) e.args = args;
      else if (this.#category[i] === OP) {
        e.args = { block: this.#a0[i], index: this.#a1[i] };
      }
      events[i] = e;
    }
    return events;
  }

  #code(name: string): number {
    let code = this.#nameCodes.get(name);
    if (code === undefined) {
      code = this.#names.push(name) - 1;
      this.#nameCodes.set(name, code);
    }
    return code;
  }

  #grow(): void {
    const n = this.#phase.length * 2;
    this.#phase = grown(new Uint8Array(n), this.#phase);
    this.#category = grown(new Uint8Array(n), this.#category);
    this.#name = grown(new Int32Array(n), this.#name);
    this.#tid = grown(new Int32Array(n), this.#tid);
    this.#ts = grown(new Float64Array(n), this.#ts);
    this.#dur = grown(new Float64Array(n), this.#dur);
    this.#id = grown(new Float64Array(n), this.#id);
    this.#a0 = grown(new Int32Array(n), this.#a0);
    this.#a1 = grown(new Int32Array(n), this.#a1);
  }
}

function grown<A extends Uint8Array | Int32Array | Float64Array>(
  to: A,
  from: A,
): A {
  to.set(from as never);
  return to;
}
