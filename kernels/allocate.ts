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

/**
 * The least element count for which `allocate` asks the large-array source
 * (see {@linkcode setLargeArraySource}) first.
 */
export const LARGE_ELEMENTS = 16384;

/**
 * Storage for large arrays in place of a private ArrayBuffer: a zero-filled
 * array of `arrayType(dtype)`, or `undefined` to let `allocate` make one.
 */
export type LargeArraySource = (
  dtype: DType,
  length: number,
) => TypedArray | undefined;

let largeSource: LargeArraySource | undefined;
let largeCount = 0;

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
  if (length >= LARGE_ELEMENTS) {
    largeCount++;
    const array = largeSource?.(dtype, length);
    if (array !== undefined) return array;
  }
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

/**
 * How many arrays of at least {@linkcode LARGE_ELEMENTS} elements this
 * thread has allocated. A loop compares it across an iteration to learn,
 * without reading the clock, that the iteration did a large kernel's work.
 *
 * @returns The count so far.
 *
 * @example Usage
 * ```ts
 * import { allocate, LARGE_ELEMENTS, largeAllocations } from "./allocate.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const before = largeAllocations();
 * allocate("float32", 10);
 * assertEquals(largeAllocations(), before);
 * allocate("float32", LARGE_ELEMENTS);
 * assertEquals(largeAllocations(), before + 1);
 * ```
 */
export function largeAllocations(): number {
  return largeCount;
}

/**
 * Installs where arrays of at least {@linkcode LARGE_ELEMENTS} elements come
 * from (a pooled run puts them in memory its workers share), or removes it.
 *
 * @param source The source, or `undefined` for private buffers again.
 * @returns The source it replaces, to restore later.
 *
 * @example Usage
 * ```ts
 * import { allocate, LARGE_ELEMENTS, setLargeArraySource } from "./allocate.ts";
 * import { assert } from "@std/assert";
 *
 * const memory = new WebAssembly.Memory({ initial: 2, maximum: 2, shared: true });
 * const previous = setLargeArraySource((dtype, length) =>
 *   dtype === "float32" ? new Float32Array(memory.buffer, 0, length) : undefined
 * );
 * try {
 *   assert(allocate("float32", LARGE_ELEMENTS).buffer instanceof SharedArrayBuffer);
 *   assert(allocate("int32", LARGE_ELEMENTS).buffer instanceof ArrayBuffer);
 * } finally {
 *   setLargeArraySource(previous);
 * }
 * ```
 */
export function setLargeArraySource(
  source: LargeArraySource | undefined,
): LargeArraySource | undefined {
  const previous = largeSource;
  largeSource = source;
  return previous;
}

// Sets `target` to a buffer with `bytes` free bytes and returns their offset.
// A buffer of its own for a large array. The engine's "Array buffer
// allocation failed" would not say how much was asked for.
function largeBuffer(bytes: number): ArrayBuffer {
  try {
    return new ArrayBuffer(bytes);
  } catch {
    throw new RangeError(
      `cannot allocate ${bytes} bytes (${
        (bytes / 2 ** 30).toFixed(1)
      } GiB) for a tensor`,
    );
  }
}

function reserve(bytes: number): number {
  if (bytes > SMALL_BYTES) {
    target = largeBuffer(bytes);
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
