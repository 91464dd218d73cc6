/**
 * A tensor array in a run's shared heap, so that `parallel_for` iterations
 * on several workers writing `Y[index]` all land in one array
 * (docs/architecture.md §2). Each slot holds a tensor blob (0: a hole); every access
 * takes the heap's lock. A large tensor is stored by reference to shared
 * storage (copied there first if it was private), so that reads share it;
 * a small one is copied in and out (tensor_codec.ts).
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

// The record's words: length, capacity, the slots' offset, and the holds
// on the record: one per handle on any worker, one per blob that names
// the array (a spawned goroutine's captured variables). The last holder
// frees the record, its slots and their tensors at its worker's next lock.
const LENGTH = 0;
const CAP = 1;
const SLOTS = 2;
const REFS = 3;
const RECORD_BYTES = 16;

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
    Atomics.add(member.heap.i32, (off >> 2) + REFS, 1);
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
    if (Atomics.sub(member.heap.i32, (off >> 2) + REFS, 1) !== 1) return;
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
    const off = member.heap.allocControl(RECORD_BYTES);
    member.unlock();
    return new SharedTensorArray(member, off);
  }

  /** How many slots the array has. */
  override get length(): number {
    return Atomics.load(this.member.heap.i32, (this.off >> 2) + LENGTH);
  }

  /**
   * Sets the number of slots.
   *
   * @param length The new length.
   */
  override resize(length: number): void {
    const m = this.member;
    m.lock();
    const r = this.off >> 2;
    const old = m.heap.i32[r + LENGTH];
    this.#reserve(length);
    const i32 = m.heap.i32;
    const slots = i32[r + SLOTS] >> 2;
    for (let i = length; i < old; i++) this.#drop(slots + i);
    Atomics.store(i32, r + LENGTH, length);
    m.unlock();
  }

  /**
   * The items in order, holes as `undefined`: copies.
   *
   * @returns The items.
   */
  override snapshot(): (Tensor | undefined)[] {
    const m = this.member;
    m.lock();
    try {
      const i32 = m.heap.i32;
      const r = this.off >> 2;
      const slots = i32[r + SLOTS] >> 2;
      return Array.from({ length: i32[r + LENGTH] }, (_, i) => {
        const blob = i32[slots + i];
        return blob === 0 ? undefined : readTensorHeld(m.heap, blob);
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
    const stored = inSharedStorage(m, t);
    m.lock();
    try {
      const r = this.off >> 2;
      if (index >= m.heap.i32[r + LENGTH]) {
        this.#reserve(index + 1);
        Atomics.store(m.heap.i32, r + LENGTH, index + 1);
      }
      const blob = encode(m.heap, tensorCodec, stored);
      const i32 = m.heap.i32;
      const slot = (i32[r + SLOTS] >> 2) + index;
      this.#drop(slot);
      i32[slot] = blob;
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
    m.lock();
    try {
      const i32 = m.heap.i32;
      const r = this.off >> 2;
      const length = i32[r + LENGTH];
      const blob = index >= 0 && index < length
        ? i32[(i32[r + SLOTS] >> 2) + index]
        : 0;
      if (blob === 0) {
        throw new RangeError(
          `read from array: index ${index} out of range or empty (length ${length})`,
        );
      }
      return readTensorHeld(m.heap, blob);
    } finally {
      m.unlock();
    }
  }

  // Frees the tensor in a slot, leaving a hole. Precondition: lock held.
  #drop(slot: number): void {
    dropSlot(this.member.heap, slot);
  }

  // Makes room for `length` slots. Precondition: lock held.
  #reserve(length: number): void {
    const heap = this.member.heap;
    const r = this.off >> 2;
    const cap = heap.i32[r + CAP];
    if (length <= cap) return;
    const newCap = Math.max(length, cap * 2, 4);
    const slots = heap.allocControl(newCap * 4);
    const i32 = heap.i32;
    const old = i32[r + SLOTS];
    for (let i = 0; i < i32[r + LENGTH]; i++) {
      i32[(slots >> 2) + i] = i32[(old >> 2) + i];
    }
    if (old !== 0) heap.freeControl(old);
    i32[r + SLOTS] = slots;
    i32[r + CAP] = newCap;
  }
}

// Frees the tensor in a slot (a word index), leaving a hole. Precondition:
// lock held.
function dropSlot(heap: SharedHeap, slot: number): void {
  const blob = heap.i32[slot];
  if (blob !== 0) {
    tensorCodec.discard(heap, blob);
    heap.freeData(blob);
  }
  heap.i32[slot] = 0;
}

// Frees an array nothing holds (lock held): its tensors, its slots and its
// record.
function tearDown(member: PoolMember, off: number): void {
  const heap = member.heap;
  const r = off >> 2;
  const slots = heap.i32[r + SLOTS];
  if (slots !== 0) {
    const length = heap.i32[r + LENGTH];
    for (let i = 0; i < length; i++) dropSlot(heap, (slots >> 2) + i);
    heap.freeControl(slots);
  }
  heap.freeControl(off);
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
