/**
 * A tensor array in a run's shared heap, so that `parallel_for` iterations
 * on several workers writing `Y[index]` all land in one array
 * (docs/architecture.md §2). Its record holds its length and its slots, each a tensor
 * blob or a hole (_array_record.ts); every access takes the heap's lock. A
 * large tensor is stored by reference to shared storage (copied there
 * first if it was private), so that reads share it; a small one is copied
 * in and out (tensor_codec.ts).
 *
 * @module
 */
import { LARGE_ELEMENTS } from "../../kernels/allocate.ts";
import { Tensor } from "../../kernels/tensor.ts";
import { encode } from "../../scheduler/shared/shared_channel.ts";
import type { PoolMember } from "../../scheduler/shared/pool_member.ts";
import type { SharedHeap } from "../../scheduler/shared/heap.ts";
import { TensorArray } from "../core/value.ts";
import { SharedStorage } from "./shared_storage.ts";
import { readTensorHeld, tensorCodec } from "./tensor_codec.ts";
import {
  arrayLength,
  createArrayRecord,
  freeArrayRecord,
  releaseArray,
  reserveSlots,
  retainArray,
  setArrayLength,
  setSlotBlob,
  slotBlob,
} from "./_array_record.ts";

type Hold = { readonly member: PoolMember; readonly off: number };

const collected = new FinalizationRegistry<Hold>((hold) =>
  SharedTensorArray.release(hold.member, hold.off)
);

/**
 * A tensor array shared by the workers of a run.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../../scheduler/scheduler.ts";
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { PoolMember } from "../../scheduler/shared/pool_member.ts";
 * import { createWakeRings } from "../../scheduler/shared/wake_ring.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { SharedTensorArray } from "./shared_tensor_array.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const s = new Scheduler({ seed: 1, threadContext: false });
 * const member = new PoolMember(heap, 0, s);
 * const a = SharedTensorArray.create(member);
 * a.write(2, Tensor.scalar(5, "float32"));
 * const b = new SharedTensorArray(member, a.off); // as another worker sees it
 * assertEquals([b.length, b.read(2).item()], [3, 5]);
 * member.close();
 * ```
 */
export class SharedTensorArray extends TensorArray {
  /** This worker. */
  readonly member: PoolMember;
  /** The array's record in the heap. */
  readonly off: number;

  /**
   * A handle on an existing array record.
   *
   * @param member This worker.
   * @param off The record.
   */
  constructor(member: PoolMember, off: number) {
    super();
    this.member = member;
    this.off = off;
    SharedTensorArray.retain(member, off);
    collected.register(this, { member, off });
  }

  /**
   * Adds a hold on an array's record, for a blob that names it.
   *
   * @param member This worker.
   * @param off The record.
   */
  static retain(member: PoolMember, off: number): void {
    retainArray(member.heap, off);
  }

  /**
   * Ends a hold on an array's record; after the last, the record, its
   * slots and their tensors are freed at this worker's next lock. Nothing
   * is freed once the run has ended (its memory goes whole).
   *
   * @param member This worker.
   * @param off The record.
   */
  static release(member: PoolMember, off: number): void {
    if (member.closed) return;
    if (!releaseArray(member.heap, off)) return;
    member.atNextLock(() => tearDown(member, off));
  }

  /**
   * Makes an empty array in the run's heap.
   *
   * @param member This worker.
   * @returns A handle on it.
   */
  static create(member: PoolMember): SharedTensorArray {
    member.lock();
    const off = createArrayRecord(member.heap);
    member.unlock();
    return new SharedTensorArray(member, off);
  }

  /** How many slots the array has. */
  override get length(): number {
    return arrayLength(this.member.heap, this.off);
  }

  /**
   * Sets the number of slots.
   *
   * @param length The new length.
   */
  override resize(length: number): void {
    const m = this.member;
    const heap = m.heap;
    m.lock();
    const old = arrayLength(heap, this.off);
    reserveSlots(heap, this.off, length);
    for (let i = length; i < old; i++) dropSlot(heap, this.off, i);
    setArrayLength(heap, this.off, length);
    m.unlock();
  }

  /**
   * The items in order, holes as `undefined`: copies.
   *
   * @returns The items.
   */
  override snapshot(): (Tensor | undefined)[] {
    const m = this.member;
    const heap = m.heap;
    m.lock();
    try {
      return Array.from({ length: arrayLength(heap, this.off) }, (_, i) => {
        const blob = slotBlob(heap, this.off, i);
        return blob === 0 ? undefined : readTensorHeld(heap, blob);
      });
    } finally {
      m.unlock();
    }
  }

  /**
   * Stores `t` at `index`, growing the array as needed.
   *
   * @param index Where; must be ≥ 0.
   * @param t The tensor.
   */
  override write(index: number, t: Tensor): void {
    if (!Number.isInteger(index) || index < 0) {
      throw new RangeError(`write to array: index ${index} out of range`);
    }
    const m = this.member;
    const heap = m.heap;
    const stored = inSharedStorage(m, t);
    m.lock();
    try {
      if (index >= arrayLength(heap, this.off)) {
        reserveSlots(heap, this.off, index + 1);
        setArrayLength(heap, this.off, index + 1);
      }
      const blob = encode(heap, tensorCodec, stored);
      dropSlot(heap, this.off, index);
      setSlotBlob(heap, this.off, index, blob);
    } finally {
      m.unlock();
    }
  }

  /**
   * The tensor at `index`: a copy.
   *
   * @param index Where.
   * @returns The tensor.
   */
  override read(index: number): Tensor {
    const m = this.member;
    const heap = m.heap;
    m.lock();
    try {
      const length = arrayLength(heap, this.off);
      const blob = index >= 0 && index < length
        ? slotBlob(heap, this.off, index)
        : 0;
      if (blob === 0) {
        throw new RangeError(
          `read from array: index ${index} out of range or empty (length ${length})`,
        );
      }
      return readTensorHeld(heap, blob);
    } finally {
      m.unlock();
    }
  }
}

// Frees the tensor in slot `index` of array `off`, leaving a hole.
// Precondition: lock held.
function dropSlot(heap: SharedHeap, off: number, index: number): void {
  const blob = slotBlob(heap, off, index);
  if (blob !== 0) {
    tensorCodec.discard(heap, blob);
    heap.freeData(blob);
  }
  setSlotBlob(heap, off, index, 0);
}

// Frees an array nothing holds (lock held): its tensors, its slots and its
// record.
function tearDown(member: PoolMember, off: number): void {
  const heap = member.heap;
  const length = arrayLength(heap, off);
  for (let i = 0; i < length; i++) dropSlot(heap, off, i);
  freeArrayRecord(heap, off);
}

// `t`, or, for a large tensor in private memory (a reply from the network,
// a feed), a copy of it in the run's shared storage, taken before the
// array's lock: the array then keeps a reference, and every reader a view,
// instead of a copy each. Falls back to `t` when the storage is full.
function inSharedStorage(member: PoolMember, t: Tensor): Tensor {
  if (t.size < LARGE_ELEMENTS) return t;
  const memory = member.heap.memory;
  if (SharedStorage.blockOf(memory, t.data) !== undefined) return t;
  const copy = SharedStorage.of(memory)?.allocate(t.dtype, t.size, false);
  if (copy === undefined) return t;
  (copy as Float32Array).set(t.data as Float32Array);
  return new Tensor(t.dtype, t.shape, copy);
}
