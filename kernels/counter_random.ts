// A counter-based random generator, Philox4x32-10 (Salmon, Moraes, Dror and
// Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC 2011), and the
// element-to-draw mapping every random fill shares, on every device.
//
// Why counter-based: element i of a random tensor is a pure function of a
// key and i, so the CPU and a GPU kernel (kernels/webgpu/random.ts) draw the
// same numbers in any order and in parallel, with no generator state.
//
// Invariants:
//   Element i of a fill reads word i % 4 of the block philox(counter(i / 4),
//   key), where the counter of block b is [b mod 2^32, floor(b / 2^32), 0,
//   0]. Gaussian fills pair words 0,1 and 2,3 of a block.
//   A word becomes a float in [0, 1) through its top 24 bits only, times
//   2^-24: exact in float32 and float64 alike, so both devices start from
//   the same value.
//   Only 32-bit integer operations: multiplies (low half with Math.imul, high
//   half from 16-bit halves), adds and xors. The WGSL port is the same
//   arithmetic on u32.

/**
 * A generator key: two 32-bit words, as unsigned integers.
 *
 * @example Usage
 * ```ts
 * import type { CounterKey } from "./counter_random.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const key: CounterKey = [7, 0];
 * assertEquals(key.length, 2);
 * ```
 */
export type CounterKey = readonly [number, number];

// The round multipliers and the key schedule's Weyl increments (the golden
// ratio and sqrt(3) - 1, as 32-bit fractions), from the paper.
const M0 = 0xd2511f53;
const M1 = 0xcd9e8d57;
const W0 = 0x9e3779b9;
const W1 = 0xbb67ae85;
const ROUNDS = 10;

/**
 * Philox4x32-10: four 32-bit words of a counter and two of a key in, four
 * uniformly distributed 32-bit words out. A bijection of the counter for
 * each key; different keys give unrelated streams.
 *
 * @param counter Four 32-bit words (unsigned).
 * @param key The key.
 * @param out Where the four words go.
 * @returns `out`.
 *
 * @example Usage
 * ```ts
 * import { philox4x32 } from "./counter_random.ts";
 * import { assertEquals } from "@std/assert";
 *
 * // The published known answer for an all-zero counter and key.
 * assertEquals(
 *   [...philox4x32([0, 0, 0, 0], [0, 0])],
 *   [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8],
 * );
 * ```
 */
export function philox4x32(
  counter: ArrayLike<number>,
  key: CounterKey,
  out: Uint32Array = new Uint32Array(4),
): Uint32Array {
  philox(counter[0], counter[1], counter[2], counter[3], key[0], key[1], out);
  return out;
}

/**
 * The four words of block `block` of a key's stream: elements
 * `4 * block` to `4 * block + 3` of a fill.
 *
 * @param key The key.
 * @param block The block index, an integer in `[0, 2^53)`.
 * @param out Where the four words go.
 * @returns `out`.
 *
 * @example Usage
 * ```ts
 * import { philox4x32, randomBlock } from "./counter_random.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(randomBlock([1, 2], 5), philox4x32([5, 0, 0, 0], [1, 2]));
 * assertEquals(
 *   randomBlock([1, 2], 2 ** 32 + 3),
 *   philox4x32([3, 1, 0, 0], [1, 2]),
 * );
 * ```
 */
export function randomBlock(
  key: CounterKey,
  block: number,
  out: Uint32Array = new Uint32Array(4),
): Uint32Array {
  const hi = Math.floor(block / 4294967296) >>> 0;
  philox(block >>> 0, hi, 0, 0, key[0], key[1], out);
  return out;
}

/**
 * A float in `[0, 1)` from the top 24 bits of a random word: a multiple of
 * 2^-24, exact in float32.
 *
 * @param word A 32-bit word (unsigned).
 * @returns `floor(word / 256) / 2^24`.
 *
 * @example Usage
 * ```ts
 * import { unitFloat } from "./counter_random.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(unitFloat(0x80000000), 0.5);
 * assertEquals(unitFloat(0xffffffff), 1 - 2 ** -24);
 * assertEquals(Math.fround(unitFloat(0x12345678)), unitFloat(0x12345678));
 * ```
 */
export function unitFloat(word: number): number {
  return (word >>> 8) * 2 ** -24;
}

/**
 * The key of a fixed seed: its 64-bit two's complement, low word first, so
 * distinct seeds (integers of up to 53 bits) give distinct keys.
 *
 * @param seed An integer; other numbers are truncated.
 * @returns The key.
 *
 * @example Usage
 * ```ts
 * import { keyFromSeed } from "./counter_random.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(keyFromSeed(7), [7, 0]);
 * assertEquals(keyFromSeed(-1), [0xffffffff, 0xffffffff]);
 * assertEquals(keyFromSeed(2 ** 32 + 5), [5, 1]);
 * ```
 */
export function keyFromSeed(seed: number): CounterKey {
  const s = Math.trunc(seed);
  return [s >>> 0, Math.floor(s / 4294967296) >>> 0];
}

// Philox4x32-10 on unboxed words (no arrays on the way in: fills call it
// once per four elements).
function philox(
  x0: number,
  x1: number,
  x2: number,
  x3: number,
  k0: number,
  k1: number,
  out: Uint32Array,
): void {
  for (let round = 0; round < ROUNDS; round++) {
    if (round > 0) {
      k0 = (k0 + W0) >>> 0;
      k1 = (k1 + W1) >>> 0;
    }
    // One round: two 32×32→64 products; their high halves are mixed with
    // the other two words and the key, the low halves pass on.
    const hi0 = mulHi(M0, x0), lo0 = Math.imul(M0, x0);
    const hi1 = mulHi(M1, x2), lo1 = Math.imul(M1, x2);
    x0 = (hi1 ^ x1 ^ k0) >>> 0;
    x1 = lo1 >>> 0;
    x2 = (hi0 ^ x3 ^ k1) >>> 0;
    x3 = lo0 >>> 0;
  }
  out[0] = x0;
  out[1] = x1;
  out[2] = x2;
  out[3] = x3;
}

// The high 32 bits of the 64-bit product of two 32-bit words, from their
// 16-bit halves: every partial product is below 2^32, so exact in a double.
function mulHi(a: number, b: number): number {
  const aLo = a & 0xffff, aHi = a >>> 16;
  const bLo = b & 0xffff, bHi = b >>> 16;
  const lohi = aLo * bHi, hilo = aHi * bLo;
  const carry = (((aLo * bLo) >>> 16) + (lohi & 0xffff) + (hilo & 0xffff)) >>>
    16;
  return (aHi * bHi + (lohi >>> 16) + (hilo >>> 16) + carry) >>> 0;
}
