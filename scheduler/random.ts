// A small seedable PRNG: xoshiro128** (Blackman and Vigna, 2018).
//
// Four 32-bit words of state, only 32-bit integer operations, period 2^128-1.
// It drives select's choice among ready cases and the random kernels, so the
// same seed gives the same run. Not for cryptography.

/**
 * A seeded pseudo-random number generator (xoshiro128**).
 *
 * Two generators built from the same seed produce the same sequence. The seed
 * is mixed with SplitMix32, so nearby seeds give unrelated sequences.
 *
 * @example Usage
 * ```ts
 * import { Random } from "./random.ts";
 * import { assert, assertEquals } from "@std/assert";
 *
 * const a = new Random(42);
 * const b = new Random(42);
 * assertEquals(a.nextInt(100), b.nextInt(100));
 * // Streams of one seed differ from each other, and repeat.
 * assertEquals(new Random(42, 7).nextUint32(), new Random(42, 7).nextUint32());
 * assert(new Random(42, 7).nextUint32() !== new Random(42, 8).nextUint32());
 * const f = a.nextFloat();
 * assert(f >= 0 && f < 1);
 * ```
 */
export class Random {
  // The four state words, in a typed array: as object fields, values
  // beyond a small integer's range would live in boxed doubles.
  readonly #s = new Int32Array(4);
  #seed: number;

  /**
   * Makes a generator from a seed, and optionally a stream number: the
   * streams of one seed are unrelated sequences (stream 0 is the seed's
   * own), so that each green thread of a run can draw from its own.
   *
   * @param seed Any finite number; integers up to 2^53 are used exactly,
   * other numbers are truncated.
   * @param stream A 32-bit stream number.
   */
  constructor(seed: number, stream = 0) {
    this.#seed = seed;
    const lo = Math.trunc(seed) >>> 0;
    const hi = Math.trunc(seed / 4294967296) >>> 0;
    // SplitMix32 of four consecutive counters fills the state. Its finalizer
    // is a bijection and the counters differ, so at most one word is zero and
    // the state is never the all-zero fixed point. A stream moves the
    // counters' start by a hash of its number.
    let x = (lo ^ Math.imul(hi, 0x9e3779b9)) >>> 0;
    if (stream !== 0) x = (x ^ splitMix32(stream ^ 0x632be5ab)) >>> 0;
    for (let i = 0; i < 4; i++) {
      x = (x + 0x9e3779b9) | 0;
      this.#s[i] = splitMix32(x);
    }
  }

  /**
   * The seed this generator was made from.
   *
   * @returns The seed passed to the constructor.
   *
   * @example Usage
   * ```ts
   * import { Random } from "./random.ts";
   * import { assertEquals } from "@std/assert";
   *
   * assertEquals(new Random(7).seed, 7);
   * ```
   */
  get seed(): number {
    return this.#seed;
  }

  /**
   * The next 32 random bits.
   *
   * @returns An integer in [0, 2^32).
   *
   * @example Usage
   * ```ts
   * import { Random } from "./random.ts";
   * import { assert } from "@std/assert";
   *
   * const u = new Random(1).nextUint32();
   * assert(Number.isInteger(u) && u >= 0 && u < 2 ** 32);
   * ```
   */
  nextUint32(): number {
    const s = this.#s;
    const s0 = s[0], s1 = s[1];
    const s2 = s[2] ^ s0, s3 = s[3] ^ s1;
    s[0] = s0 ^ s3;
    s[1] = s1 ^ s2;
    s[2] = s2 ^ (s1 << 9);
    s[3] = rotl(s3, 11);
    return Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
  }

  /**
   * A uniform float in [0, 1) with 32 bits of randomness.
   *
   * @returns A number `f` with `0 <= f < 1`.
   *
   * @example Usage
   * ```ts
   * import { Random } from "./random.ts";
   * import { assert } from "@std/assert";
   *
   * const r = new Random(3);
   * for (let i = 0; i < 100; i++) {
   *   const f = r.nextFloat();
   *   assert(f >= 0 && f < 1);
   * }
   * ```
   */
  nextFloat(): number {
    return this.nextUint32() / 4294967296;
  }

  /**
   * A uniform integer in [0, n), without modulo bias (Lemire's method).
   *
   * @param n The exclusive upper bound, an integer in [1, 2^32].
   * @returns An integer `i` with `0 <= i < n`.
   * @throws {RangeError} If `n` is not an integer in [1, 2^32].
   *
   * @example Usage
   * ```ts
   * import { Random } from "./random.ts";
   * import { assert } from "@std/assert";
   *
   * const i = new Random(5).nextInt(6);
   * assert(i >= 0 && i < 6);
   * ```
   */
  nextInt(n: number): number {
    if (n <= 0x200000 && n >= 1 && (n | 0) === n) {
      // x * n < 2^53 is exact; its high 32 bits are the result unless its
      // low 32 bits fall in the biased sliver below (2^32 - n) mod n. The
      // halves come from a product with 2^-32 and a subtraction, both exact
      // in doubles (`%` on a double calls fmod: a third of a select's time).
      let m = this.nextUint32() * n;
      let high = (m * TWO_TO_MINUS_32) | 0;
      let low = m - high * 4294967296;
      if (low < n) {
        const threshold = (4294967296 - n) % n;
        while (low < threshold) {
          m = this.nextUint32() * n;
          high = (m * TWO_TO_MINUS_32) | 0;
          low = m - high * 4294967296;
        }
      }
      return high;
    }
    if (!Number.isInteger(n) || n < 1 || n > 4294967296) {
      throw new RangeError(
        `Cannot draw an integer below ${n}: n must be an integer in [1, 2^32]`,
      );
    }
    // Large n: rejection sampling on 32-bit draws.
    const limit = 4294967296 - (4294967296 % n);
    let x = this.nextUint32();
    while (x >= limit) x = this.nextUint32();
    return x % n;
  }
  /**
   * A uniformly random permutation of 0 … n-1 (Fisher–Yates, inside-out),
   * drawing n integers.
   *
   * @param n How many indices.
   * @returns The permutation.
   *
   * @example Usage
   * ```ts
   * import { Random } from "./random.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const p = new Random(9).permutation(5);
   * assertEquals([...p].sort(), [0, 1, 2, 3, 4]);
   * ```
   */
  permutation(n: number): number[] {
    const order = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      const j = this.nextInt(i + 1);
      order[i] = order[j];
      order[j] = i;
    }
    return order;
  }
}

const TWO_TO_MINUS_32 = 1 / 4294967296;

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

function splitMix32(x: number): number {
  let z = x;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) | 0;
}
