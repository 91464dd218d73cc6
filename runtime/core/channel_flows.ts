// The flows of a run trace: an arrow from each send to the receive that
// took its value. On one worker the value itself says which send a receive
// pairs with (a channel is FIFO, so it is the oldest send of that value on
// that channel not yet received); across workers the traced codec writes a
// flow id in front of each value, which the receiving worker reads back
// (runtime/pool/traced_codec.ts).
//
// Invariants: a flow id is unique across workers (the worker's index times
// 2^32 plus a count); each id gets one start (s) and at most one end (f).

import type { GreenThread } from "../../scheduler/green_thread.ts";
import { type EventLog, FLOW_END, FLOW_START } from "./_event_log.ts";

/**
 * One worker's flows, recorded into its tracer's log.
 *
 * @example Usage
 * ```ts
 * import { RunTracer } from "./run_tracer.ts";
 * import { Scheduler } from "../../scheduler/scheduler.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const tracer = new RunTracer();
 * const s = new Scheduler({ seed: 1, tracer });
 * const ch = {}, value = {};
 * await s.run((main) => {
 *   const other = s.go(() => {});
 *   tracer.flows.sent(main, ch, value);
 *   tracer.flows.received(other, ch, value);
 * });
 * const flows = tracer.finish().filter((e) => e.cat === "flow");
 * assertEquals(flows.map((e) => [e.ph, e.tid]), [["s", 1], ["f", 2]]);
 * assertEquals(flows[0].id, flows[1].id);
 * ```
 */
export class ChannelFlows {
  readonly #worker: number;
  readonly #log: EventLog;
  readonly #now: () => number;
  #count = 0;
  // Local channels' values in flight: the sends not yet received, by flow
  // id (in `ts`).
  readonly #inFlight = new FlowEnds();
  // Receives whose send was not told yet (a select's send case), by
  // receiver and time.
  readonly #early = new FlowEnds();
  // Values decoded from a shared channel, with the flow id they carried.
  readonly #carried = new WeakMap<object, number>();

  /**
   * Makes the flows of one worker's tracer.
   *
   * @param worker The worker.
   * @param log Where events go.
   * @param now The tracer's clock (µs).
   */
  constructor(worker: number, log: EventLog, now: () => number) {
    this.#worker = worker;
    this.#log = log;
    this.#now = now;
  }

  /**
   * `thread` sends `value` on a channel of this worker: the start of a flow
   * that ends where the value is received. A select's send case is told
   * after it completed (`done`), when its receiver may have received the
   * value already: then the flow is drawn at that receive.
   *
   * @param thread The sender.
   * @param channel The channel.
   * @param value The value sent.
   * @param done Whether the send has completed.
   */
  sent(
    thread: GreenThread,
    channel: object,
    value: unknown,
    done = false,
  ): void {
    if (done) {
      const early = this.#early.take(channel, value);
      if (early !== undefined) {
        const id = this.flowOut(undefined);
        this.#flow(FLOW_START, thread.id, id, early.ts);
        return this.#flow(FLOW_END, early.tid, id, early.ts);
      }
    }
    const id = this.flowOut(thread);
    this.#inFlight.put(channel, value, { tid: thread.id, ts: id });
  }

  /**
   * Starts a flow on `thread` now (a value leaves it).
   *
   * @param thread The sender, if known.
   * @returns The flow's id.
   */
  flowOut(thread: GreenThread | undefined): number {
    const id = this.#worker * 2 ** 32 + ++this.#count;
    if (thread !== undefined) {
      this.#flow(FLOW_START, thread.id, id, this.#now());
    }
    return id;
  }

  /**
   * Marks `value`, decoded from a shared channel, as carrying flow `id`.
   *
   * @param value The decoded value.
   * @param id The flow id its sender wrote.
   */
  carried(value: object, id: number): void {
    this.#carried.set(value, id);
  }

  /**
   * `thread` received `value` from `channel`: ends the flow of its send.
   * A closed channel's zero value ends none.
   *
   * @param thread The receiver.
   * @param channel The channel.
   * @param value The value received.
   */
  received(thread: GreenThread, channel: object, value: unknown): void {
    if (typeof value === "object" && value !== null) {
      const id = this.#carried.get(value);
      if (id !== undefined) {
        this.#carried.delete(value);
        return this.#flow(FLOW_END, thread.id, id, this.#now());
      }
    }
    const sent = this.#inFlight.take(channel, value);
    if (sent !== undefined) {
      return this.#flow(FLOW_END, thread.id, sent.ts, this.#now());
    }
    this.#early.put(channel, value, { tid: thread.id, ts: this.#now() });
  }

  #flow(phase: number, tid: number, id: number, ts: number): void {
    this.#log.add(phase, "flow", "send", ts, 0, tid, id, 0, 0);
  }
}

// One end of a flow: a thread and a time (or a flow id).
interface FlowEnd {
  readonly tid: number;
  readonly ts: number;
}

// Flow ends by channel and value, oldest first; channels are held weakly.
// A local channel is FIFO, so the oldest end kept for a value on a channel
// is the one its other end pairs with.
class FlowEnds {
  readonly #byChannel = new WeakMap<object, Map<unknown, FlowEnd[]>>();

  /**
   * Keeps `end` for `value` on `channel`, after those kept before.
   *
   * @param channel The channel.
   * @param value The value.
   * @param end The end.
   */
  put(channel: object, value: unknown, end: FlowEnd): void {
    let values = this.#byChannel.get(channel);
    if (values === undefined) {
      this.#byChannel.set(channel, values = new Map());
    }
    const list = values.get(value);
    if (list === undefined) values.set(value, [end]);
    else list.push(end);
  }

  /**
   * Takes the oldest end kept for `value` on `channel`.
   *
   * @param channel The channel.
   * @param value The value.
   * @returns The end, or undefined when none is kept.
   */
  take(channel: object, value: unknown): FlowEnd | undefined {
    const values = this.#byChannel.get(channel);
    const list = values?.get(value);
    if (list === undefined) return undefined;
    const end = list.shift()!;
    if (list.length === 0) values!.delete(value);
    return end;
  }
}
