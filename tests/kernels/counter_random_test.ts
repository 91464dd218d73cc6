import { assert, assertEquals } from "@std/assert";
import {
  keyFromSeed,
  philox4x32,
  randomBlock,
  unitFloat,
} from "../../kernels/counter_random.ts";

const words = (hex: string) => hex.split(" ").map((w) => parseInt(w, 16));

// Philox4x32-10 known answers published with the algorithm (Random123's
// kat_vectors): counter, key, output.
const KNOWN_ANSWERS: [string, string, string][] = [
  [
    "00000000 00000000 00000000 00000000",
    "00000000 00000000",
    "6627e8d5 e169c58d bc57ac4c 9b00dbd8",
  ],
  [
    "ffffffff ffffffff ffffffff ffffffff",
    "ffffffff ffffffff",
    "408f276d 41c83b0e a20bc7c6 6d5451fd",
  ],
  [
    "243f6a88 85a308d3 13198a2e 03707344",
    "a4093822 299f31d0",
    "d16cfe09 94fdcceb 5001e420 24126ea1",
  ],
];

Deno.test("philox4x32() gives the published Philox4x32-10 known answers", () => {
  for (const [counter, key, output] of KNOWN_ANSWERS) {
    const [k0, k1] = words(key);
    assertEquals([...philox4x32(words(counter), [k0, k1])], words(output));
  }
});

Deno.test("philox4x32() writes into the array it is given", () => {
  const out = new Uint32Array(4);
  const result = philox4x32([1, 2, 3, 4], [5, 6], out);
  assert(result === out);
  assertEquals(out, philox4x32([1, 2, 3, 4], [5, 6]));
});

Deno.test("randomBlock() is block b's counter, low word first", () => {
  assertEquals(randomBlock([3, 4], 0), philox4x32([0, 0, 0, 0], [3, 4]));
  assertEquals(
    randomBlock([3, 4], 0xffffffff),
    philox4x32([0xffffffff, 0, 0, 0], [3, 4]),
  );
  assertEquals(
    randomBlock([3, 4], 2 ** 40 + 9),
    philox4x32([9, 2 ** 8, 0, 0], [3, 4]),
  );
});

Deno.test("randomBlock() differs by block and by key", () => {
  const seen = new Set<number>();
  for (const key of [[0, 0], [1, 0], [0, 1]] as const) {
    for (let block = 0; block < 100; block++) {
      for (const w of randomBlock(key, block)) seen.add(w);
    }
  }
  assertEquals(seen.size, 3 * 100 * 4);
});

Deno.test("unitFloat() keeps the top 24 bits, exact in float32, in [0, 1)", () => {
  assertEquals(unitFloat(0), 0);
  assertEquals(unitFloat(0xff), 0);
  assertEquals(unitFloat(0x100), 2 ** -24);
  assertEquals(unitFloat(0xffffffff), 1 - 2 ** -24);
  for (let block = 0; block < 256; block++) {
    for (const w of randomBlock([11, 12], block)) {
      const u = unitFloat(w);
      assert(u >= 0 && u < 1 && Math.fround(u) === u);
    }
  }
});

Deno.test("unitFloat() of the stream is uniform: each tenth holds about a tenth", () => {
  const counts = new Array(10).fill(0);
  const n = 40_000;
  for (let block = 0; block < n / 4; block++) {
    for (const w of randomBlock([42, 0], block)) {
      counts[Math.floor(unitFloat(w) * 10)]++;
    }
  }
  // 6 standard deviations of a binomial(n, 0.1) count.
  const sd = Math.sqrt(n * 0.1 * 0.9);
  for (const c of counts) assert(Math.abs(c - n / 10) < 6 * sd, `${counts}`);
});

Deno.test("keyFromSeed() is the seed's 64-bit two's complement, low word first", () => {
  assertEquals(keyFromSeed(0), [0, 0]);
  assertEquals(keyFromSeed(7), [7, 0]);
  assertEquals(keyFromSeed(2 ** 32), [0, 1]);
  assertEquals(keyFromSeed(2 ** 53 - 1), [0xffffffff, 2 ** 21 - 1]);
  assertEquals(keyFromSeed(-1), [0xffffffff, 0xffffffff]);
  assertEquals(keyFromSeed(-(2 ** 32)), [0, 0xffffffff]);
  assertEquals(keyFromSeed(7.9), [7, 0]);
});
