// The codec of a traced pooled run's channels: the tensor codec, with the
// flow id of the send in front of each value (two words), so that the
// receiver, on whichever worker, ends the flow its sender began. Every
// worker of a traced run uses it for every channel, and no worker of an
// untraced run does, so the layout is the same wherever a value is read.
//
//   word 0  the flow id's low 32 bits (0: no flow, as a zero value)
//   word 1  its high bits (the sending worker's index)
//   then    the tensor codec's bytes (8-byte alignment kept)

import type { Tensor } from "../../kernels/tensor.ts";
import type { SharedHeap } from "../../scheduler/shared/heap.ts";
import type { SharedCodec } from "../../scheduler/shared/shared_codec.ts";
import type { RunTracer } from "../core/run_tracer.ts";
import { tensorCodec } from "./tensor_codec.ts";

const ID_BYTES = 8;

// The codec channels use now: traced while this worker runs a traced run.
let current: TracedCodec | undefined;

/**
 * The codec of shared tensor channels on this worker: the tensor codec, or
 * the traced one while a traced run runs here.
 *
 * @returns The codec.
 *
 * @example Usage
 * ```ts
 * import { channelCodec } from "./traced_codec.ts";
 * import { tensorCodec } from "./tensor_codec.ts";
 * import { assert } from "@std/assert";
 *
 * assert(channelCodec() === tensorCodec);
 * ```
 */
export function channelCodec(): SharedCodec<Tensor> {
  return current ?? tensorCodec;
}

/**
 * The tracer whose flow ids channels on this worker carry now, if any.
 *
 * @returns The tracer.
 *
 * @example Usage
 * ```ts
 * import { channelTracer } from "./traced_codec.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(channelTracer(), undefined);
 * ```
 */
export function channelTracer(): RunTracer | undefined {
  return current?.tracer;
}

/**
 * Makes channels on this worker carry flow ids for `tracer` (or, with
 * `undefined`, plain values again).
 *
 * @param tracer The worker's tracer.
 *
 * @example Usage
 * ```ts
 * import { channelCodec, traceChannelValues } from "./traced_codec.ts";
 * import { RunTracer } from "../core/run_tracer.ts";
 * import { tensorCodec } from "./tensor_codec.ts";
 * import { assert } from "@std/assert";
 *
 * traceChannelValues(new RunTracer());
 * assert(channelCodec() !== tensorCodec);
 * traceChannelValues(undefined);
 * assert(channelCodec() === tensorCodec);
 * ```
 */
export function traceChannelValues(tracer: RunTracer | undefined): void {
  current = tracer && new TracedCodec(tracer);
}

/**
 * Runs `make` (which makes a channel) without starting flows: a channel's
 * zero value is written, never sent.
 *
 * @param make What makes the channel.
 * @returns What it returns.
 *
 * @example Usage
 * ```ts
 * import { quietly } from "./traced_codec.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(quietly(() => 3), 3);
 * ```
 */
export function quietly<T>(make: () => T): T {
  const codec = current;
  if (codec === undefined) return make();
  codec.quiet = true;
  try {
    return make();
  } finally {
    codec.quiet = false;
  }
}

class TracedCodec implements Required<SharedCodec<Tensor>> {
  readonly tracer: RunTracer;
  quiet = false;

  constructor(tracer: RunTracer) {
    this.tracer = tracer;
  }

  byteLength(heap: SharedHeap, t: Tensor): number {
    return ID_BYTES + tensorCodec.byteLength(heap, t);
  }

  write(heap: SharedHeap, off: number, t: Tensor): void {
    tensorCodec.write(heap, off + ID_BYTES, t);
    const tracer = this.tracer;
    const id = this.quiet ? 0 : tracer.flows.flowOut(tracer.current);
    const i32 = heap.i32To(off + ID_BYTES);
    i32[off >> 2] = id % 2 ** 32;
    i32[(off >> 2) + 1] = Math.floor(id / 2 ** 32);
  }

  read(heap: SharedHeap, off: number): Tensor {
    const t = tensorCodec.read(heap, off + ID_BYTES);
    const i32 = heap.i32To(off + ID_BYTES);
    const id = (i32[off >> 2] >>> 0) + i32[(off >> 2) + 1] * 2 ** 32;
    if (id !== 0) this.tracer.flows.carried(t, id);
    return t;
  }

  discard(heap: SharedHeap, off: number): void {
    tensorCodec.discard(heap, off + ID_BYTES);
  }
}
