// Storage for new tensors, with small arrays carved out of shared slabs.
//
// Why slabs: in Deno a new ArrayBuffer costs about 0.3 µs (its backing store
// comes from the embedder's allocator), while a typed-array view on an
// existing buffer costs about 20 ns. Interpreted programs make a fresh
// one-element tensor for nearly every op (loop counters, conditions), so
// arrays of at most SMALL_BYTES take the next 8-byte-aligned bytes of a
// SLAB_BYTES buffer and only bigger ones get a buffer of their own.
//
// Invariants:
//   The bump pointer only moves forward and a slab is never reused, so no
//   byte is handed out twice and every view starts zero-filled.
//   A view keeps its whole slab alive: at most SLAB_BYTES per live small
//   tensor, and usually far less, since neighbours die together.
// The one forbidden act: never transfer or detach `tensor.data.buffer` (it
// may hold other tensors); send a copy, `data.slice()`, instead.

import type { DType, TypedArray } from "./dtype.ts";

const SLAB_BYTES = 4096;
const SMALL_BYTES = 128;

let slab = new ArrayBuffer(SLAB_BYTES);
let used = 0;
// The buffer `reserve` chose: `slab`, or a private buffer for a large array.
let target = slab;

/**
 * A new zero-filled storage array for `length` elements of a dtype.
 *
 * The array may be a view into a buffer shared with other small tensors:
 * use `byteOffset` when reading its bytes, and never transfer its buffer.
 *
 * @param dtype The element type.
 * @param length The number of elements.
 * @returns The new typed array, `arrayType(dtype)`.
 *
 * @example Usage
 * ```ts
 * import { allocate } from "./allocate.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const data = allocate("float16", 3);
 * assertEquals(data instanceof Float16Array, true);
 * assertEquals([...data], [0, 0, 0]);
 * ```
 */
export function allocate(dtype: DType, length: number): TypedArray {
  // A switch keeps each constructor call site monomorphic, which V8 turns
  // into an inline view allocation; a table lookup would not be.
  // One constructor call site per type keeps each monomorphic, so V8
  // inlines the view allocation; a table of constructors would not be.
  // `reserve` runs before `target` is read: it may replace the slab.
  switch (dtype) {
    case "float32": {
      const offset = reserve(length * 4);
      return new Float32Array(target, offset, length);
    }
    case "int64": {
      const offset = reserve(length * 8);
      return new BigInt64Array(target, offset, length);
    }
    case "float64": {
      const offset = reserve(length * 8);
      return new Float64Array(target, offset, length);
    }
    case "int32": {
      const offset = reserve(length * 4);
      return new Int32Array(target, offset, length);
    }
    case "bool":
    case "uint8": {
      const offset = reserve(length);
      return new Uint8Array(target, offset, length);
    }
    case "int8": {
      const offset = reserve(length);
      return new Int8Array(target, offset, length);
    }
    case "int16": {
      const offset = reserve(length * 2);
      return new Int16Array(target, offset, length);
    }
    case "float16": {
      const offset = reserve(length * 2);
      return new Float16Array(target, offset, length);
    }
    default:
      throw new TypeError(`allocate: unknown dtype "${dtype}"`);
  }
}

// Sets `target` to a buffer with `bytes` free bytes and returns their offset.
function reserve(bytes: number): number {
  if (bytes > SMALL_BYTES) {
    target = new ArrayBuffer(bytes);
    return 0;
  }
  if (used + bytes > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES);
    used = 0;
  }
  target = slab;
  const offset = used;
  used += (bytes + 7) & ~7;
  return offset;
}
