/**
 * A program's value as it crosses to another worker: written into a spawn
 * blob as a tag and a reference, and read back on the other side.
 *
 * A tensor is written whole (its elements, or a reference to its shared
 * storage: tensor_codec.ts), and so is a raw value (a list of strings).
 * A shared channel or tensor array is named by its record, which the
 * reference holds until it is read: the reading worker's new handle then
 * takes a hold of its own (shared_channel.ts, shared_tensor_array.ts).
 * Every reference is read once, or the run ends first.
 *
 * @module
 */
import { Tensor } from "../../kernels/tensor.ts";
import type { SharedHeap } from "../../scheduler/shared/heap.ts";
import type { PoolMember } from "../../scheduler/shared/pool_member.ts";
import {
  encode,
  SharedChannel,
} from "../../scheduler/shared/shared_channel.ts";
import { InternalError } from "../core/errors.ts";
import type { Value } from "../core/value.ts";
import { SharedTensorArray } from "./shared_tensor_array.ts";
import { tensorCodec } from "./tensor_codec.ts";
import { channelCodec } from "./traced_codec.ts";
import {
  channelRecord,
  openSharedChannel,
  releaseChannel,
  retainChannel,
} from "../../scheduler/shared/_channel_handle.ts";
import { byteBlobSize, readByteBlob, writeByteBlob } from "./_byte_blob.ts";

// Value tags.
const UNSET = 0;
const TENSOR = 1;
const RAW = 2;
const CHANNEL = 3;
const ARRAY = 4;
const NIL = 5;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// A raw value is its JSON as a byte blob.
const rawCodec = {
  byteLength: (_heap: SharedHeap, v: readonly string[]) =>
    byteBlobSize(encoder.encode(JSON.stringify(v)).byteLength),
  write(heap: SharedHeap, off: number, v: readonly string[]) {
    writeByteBlob(heap, off, encoder.encode(JSON.stringify(v)));
  },
  read(heap: SharedHeap, off: number): readonly string[] {
    return JSON.parse(decoder.decode(readByteBlob(heap, off)));
  },
};

/**
 * Writes a value for another worker. Precondition: the lock is held.
 *
 * @param member This worker.
 * @param v The value.
 * @returns Its tag and reference, two words for the blob.
 * @throws {InternalError} For a value that cannot cross (none should).
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../../scheduler/scheduler.ts";
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { PoolMember } from "../../scheduler/shared/pool_member.ts";
 * import { createWakeRings } from "../../scheduler/shared/wake_ring.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { readCrossing, writeCrossing } from "./crossing_value.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * member.lock();
 * const [tag, ref] = writeCrossing(member, Tensor.scalar(3, "int32"));
 * member.unlock();
 * assertEquals((readCrossing(member, tag, ref) as Tensor).item(), 3);
 * member.close();
 * ```
 */
export function writeCrossing(member: PoolMember, v: Value): [number, number] {
  const heap = member.heap;
  if (v === undefined) return [UNSET, 0];
  if (v === null) return [NIL, 0];
  if (v instanceof Tensor) return [TENSOR, encode(heap, tensorCodec, v)];
  if (v instanceof SharedChannel) {
    retainChannel(member, channelRecord(v)); // the reference's hold
    return [CHANNEL, channelRecord(v)];
  }
  if (v instanceof SharedTensorArray) {
    SharedTensorArray.retain(member, v.off); // the reference's hold
    return [ARRAY, v.off];
  }
  if (Array.isArray(v)) return [RAW, encode(heap, rawCodec, v)];
  throw new InternalError("a value of one worker cannot cross to another");
}

/**
 * Reads a value another worker wrote, and lets go of what its reference
 * held.
 *
 * @param member This worker.
 * @param tag The value's tag, from `writeCrossing`.
 * @param ref Its reference.
 * @returns The value: a new tensor, or a handle on this worker.
 * @throws {InternalError} For an unknown tag.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../../scheduler/scheduler.ts";
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { PoolMember } from "../../scheduler/shared/pool_member.ts";
 * import { createWakeRings } from "../../scheduler/shared/wake_ring.ts";
 * import { readCrossing, writeCrossing } from "./crossing_value.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * member.lock();
 * const [tag, ref] = writeCrossing(member, ["x", "y"]);
 * member.unlock();
 * assertEquals(readCrossing(member, tag, ref), ["x", "y"]);
 * member.close();
 * ```
 */
export function readCrossing(
  member: PoolMember,
  tag: number,
  ref: number,
): Value {
  switch (tag) {
    case UNSET:
      return undefined;
    case NIL:
      return null;
    case TENSOR: {
      const t = tensorCodec.read(member.heap, ref);
      tensorCodec.discard(member.heap, ref);
      member.freeDataLater(ref);
      return t;
    }
    case RAW: {
      const raw = rawCodec.read(member.heap, ref);
      member.freeDataLater(ref);
      return raw;
    }
    case CHANNEL: {
      // The handle takes a hold of its own; the reference's ends.
      const channel = openSharedChannel(member, ref, channelCodec());
      releaseChannel(member, ref, channelCodec());
      return channel;
    }
    case ARRAY: {
      const array = new SharedTensorArray(member, ref);
      SharedTensorArray.release(member, ref);
      return array;
    }
  }
  throw new InternalError(`spawn: unknown value tag ${tag}`);
}
