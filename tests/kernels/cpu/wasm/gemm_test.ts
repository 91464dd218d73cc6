import { assert, assertEquals, assertThrows } from "@std/assert";
import {
  adoptGemmModule,
  GemmKernel,
  type GemmLayout,
  gemmModule,
  gemmScratchBytes,
  matmulFloat32,
  packedBBytes,
} from "../../../../kernels/cpu/wasm/gemm.ts";

// Tolerance: a float32 sum of k products, each rounded once, is within
// (k + 1) · 2^-24 · Σ|a·b| of the exact sum (the classic recursive summation
// bound, first order). The float64 reference is exact to far better than
// that, so every element must be within it.
const UNIT_ROUNDOFF = 2 ** -24;

const SIZES = [0, 1, 3, 7, 17, 33, 65, 100, 129, 257];

// Seeded uniform values in [-1, 1), rounded to float32 (mulberry32).
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.fround(((t ^ (t >>> 14)) >>> 0) / 2 ** 31 - 1);
  };
}

function randomArray(length: number, next: () => number): Float32Array {
  return Float32Array.from({ length }, next);
}

// Checks c (m×n) against a float64 reference of a (m×k) · b (k×n).
function assertProduct(
  c: Float32Array,
  a: Float32Array,
  b: Float32Array,
  [m, k, n]: readonly number[],
): void {
  assertEquals(c.length, m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let sum = 0, magnitude = 0;
      for (let p = 0; p < k; p++) {
        const term = a[i * k + p] * b[p * n + j];
        sum += term;
        magnitude += Math.abs(term);
      }
      const got = c[i * n + j];
      const bound = (k + 1) * UNIT_ROUNDOFF * magnitude;
      if (!(Math.abs(got - sum) <= bound)) {
        throw new Error(
          `${m}×${k}×${n}: C[${i}][${j}] is ${got}, expected ${sum} ± ${bound}`,
        );
      }
    }
  }
}

// Lays a product out in a memory: scratch, A, B, packed B, C, then a guard
// band that must stay untouched. Returns the layout and the guard's offset.
interface Placed extends GemmLayout {
  readonly b: number;
  readonly scratch: number;
  readonly guard: number;
}

function place([m, k, n]: readonly number[], memory: WebAssembly.Memory) {
  const at = (bytes: number) => Math.ceil(bytes / 16) * 16;
  const scratch = 0;
  const a = at(gemmScratchBytes());
  const b = at(a + 4 * m * k);
  const packedB = at(b + 4 * k * n);
  const c = at(packedB + packedBBytes(k, n));
  const guard = c + 4 * m * n;
  const pages = Math.ceil((guard + 64) / 65536);
  const have = memory.buffer.byteLength / 65536;
  if (pages > have) memory.grow(pages - have);
  const placed: Placed = { scratch, a, b, packedB, c, guard, m, k, n };
  return placed;
}

// Writes seeded A and B, C full of NaN and the guard band, and packs B.
function prepare(
  kernel: GemmKernel,
  placed: Placed,
  seed: number,
): { a: Float32Array; b: Float32Array } {
  const next = random(seed);
  const a = randomArray(placed.m * placed.k, next);
  const b = randomArray(placed.k * placed.n, next);
  const f32 = new Float32Array(kernel.memory.buffer);
  f32.set(a, placed.a / 4);
  f32.set(b, placed.b / 4);
  f32.fill(NaN, placed.c / 4, placed.guard / 4);
  f32.fill(-7, placed.guard / 4, placed.guard / 4 + 16);
  kernel.packB(placed);
  return { a, b };
}

function readC(kernel: GemmKernel, placed: Placed): Float32Array {
  const f32 = new Float32Array(kernel.memory.buffer);
  return f32.slice(placed.c / 4, placed.c / 4 + placed.m * placed.n);
}

function assertGuard(kernel: GemmKernel, placed: Placed): void {
  const f32 = new Float32Array(kernel.memory.buffer);
  assertEquals(
    [...f32.subarray(placed.guard / 4, placed.guard / 4 + 16)],
    new Array(16).fill(-7),
  );
}

// --- Accuracy over shapes

Deno.test("GemmKernel.computeRows() matches a float64 reference over odd shapes", () => {
  const kernel = new GemmKernel(new WebAssembly.Memory({ initial: 1 }));
  let seed = 1;
  for (const m of SIZES) {
    for (const k of SIZES) {
      for (const n of SIZES) {
        const placed = place([m, k, n], kernel.memory);
        const { a, b } = prepare(kernel, placed, seed++);
        kernel.computeRows(placed, { scratch: placed.scratch });
        assertProduct(readC(kernel, placed), a, b, [m, k, n]);
        assertGuard(kernel, placed);
      }
    }
  }
});

Deno.test("GemmKernel.computeRows() gives the same bits under any blocking", () => {
  const kernel = new GemmKernel(new WebAssembly.Memory({ initial: 1 }));
  const placed = place([67, 300, 45], kernel.memory);
  prepare(kernel, placed, 7);
  kernel.computeRows(placed, { scratch: placed.scratch });
  const whole = readC(kernel, placed);
  for (const [kc, mc] of [[1, 1], [3, 5], [64, 16], [299, 67], [1000, 1000]]) {
    kernel.computeRows(placed, { scratch: placed.scratch, kc, mc });
    assertEquals(readC(kernel, placed), whole, `kc ${kc}, mc ${mc}`);
  }
});

// --- Row ranges

Deno.test("GemmKernel.computeRows() split at any row gives the whole product's bits", () => {
  const kernel = new GemmKernel(new WebAssembly.Memory({ initial: 1 }));
  const placed = place([37, 129, 33], kernel.memory);
  prepare(kernel, placed, 3);
  kernel.computeRows(placed, { scratch: placed.scratch });
  const whole = readC(kernel, placed);
  for (const r of [0, 1, 3, 4, 5, 18, 36, 37]) {
    new Float32Array(kernel.memory.buffer).fill(
      NaN,
      placed.c / 4,
      placed.guard / 4,
    );
    kernel.computeRows(placed, { scratch: placed.scratch, start: 0, end: r });
    kernel.computeRows(placed, { scratch: placed.scratch, start: r, end: 37 });
    assertEquals(readC(kernel, placed), whole, `split at ${r}`);
  }
});

Deno.test("GemmKernel.computeRows() writes only its rows of C", () => {
  const kernel = new GemmKernel(new WebAssembly.Memory({ initial: 1 }));
  const placed = place([11, 20, 13], kernel.memory);
  const { a, b } = prepare(kernel, placed, 5);
  kernel.computeRows(placed, { scratch: placed.scratch, start: 3, end: 6 });
  const c = readC(kernel, placed);
  assert(c.subarray(0, 3 * 13).every(Number.isNaN));
  assert(c.subarray(6 * 13).every(Number.isNaN));
  assertProduct(
    c.subarray(3 * 13, 6 * 13),
    a.subarray(3 * 20, 6 * 20),
    b,
    [3, 20, 13],
  );
  assertGuard(kernel, placed);
});

Deno.test("GemmKernel.computeRows() rejects a bad row range or block size", () => {
  const kernel = new GemmKernel(new WebAssembly.Memory({ initial: 1 }));
  const layout = { a: 0, packedB: 0, c: 0, m: 4, k: 1, n: 1 };
  for (const [start, end] of [[-1, 2], [3, 2], [0, 5]]) {
    assertThrows(
      () => kernel.computeRows(layout, { scratch: 0, start, end }),
      RangeError,
    );
  }
  assertThrows(
    () => kernel.computeRows(layout, { scratch: 0, kc: 0 }),
    RangeError,
  );
  assertThrows(
    () => kernel.computeRows(layout, { scratch: 0, mc: 1.5 }),
    RangeError,
  );
});

// --- Shared memory and Workers

Deno.test("GemmKernel runs over a shared memory", () => {
  const memory = new WebAssembly.Memory({
    initial: 1,
    maximum: 1024,
    shared: true,
  });
  const kernel = new GemmKernel(memory);
  assert(kernel.memory.buffer instanceof SharedArrayBuffer);
  const placed = place([65, 100, 17], memory);
  const { a, b } = prepare(kernel, placed, 11);
  kernel.computeRows(placed, { scratch: placed.scratch });
  assertProduct(readC(kernel, placed), a, b, [65, 100, 17]);
});

Deno.test("gemmModule() refuses a memory of the other sharing mode", () => {
  const memory = new WebAssembly.Memory({ initial: 1 });
  assertThrows(
    () => new WebAssembly.Instance(gemmModule(true), { env: { memory } }),
    WebAssembly.LinkError,
  );
});

Deno.test("GemmKernel.computeRows() on two Workers over one shared memory matches one thread", async () => {
  const memory = new WebAssembly.Memory({
    initial: 1,
    maximum: 1024,
    shared: true,
  });
  const kernel = new GemmKernel(memory);
  const placed = place([259, 130, 75], memory);
  // A second scratch, after the guard band, for the second Worker.
  const scratch2 = Math.ceil((placed.guard + 64) / 64) * 64;
  const pages = Math.ceil((scratch2 + gemmScratchBytes()) / 65536);
  memory.grow(Math.max(0, pages - memory.buffer.byteLength / 65536));
  prepare(kernel, placed, 13);
  kernel.computeRows(placed, { scratch: placed.scratch });
  const single = readC(kernel, placed);
  new Float32Array(memory.buffer).fill(NaN, placed.c / 4, placed.guard / 4);

  const url = new URL("./_gemm_worker.ts", import.meta.url);
  const workers = [0, 1].map(() => new Worker(url, { type: "module" }));
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const halves = [
      { scratch: placed.scratch, start: 0, end: 128 },
      { scratch: scratch2, start: 128, end: 259 },
    ];
    const replies = workers.map((worker, i) =>
      new Promise<void>((resolve, reject) => {
        worker.onmessage = (event) =>
          event.data.ok ? resolve() : reject(new Error(event.data.error));
        worker.onerror = (event) => {
          event.preventDefault();
          reject(new Error(event.message));
        };
        worker.postMessage({ memory, layout: placed, options: halves[i] });
      })
    );
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("workers timed out")), 30_000);
    });
    await Promise.race([Promise.all(replies), timeout]);
  } finally {
    clearTimeout(timer);
    for (const worker of workers) worker.terminate();
  }
  assertEquals(readC(kernel, placed), single);
  assertGuard(kernel, placed);
});

// --- matmulFloat32

Deno.test("matmulFloat32() matches a float64 reference on non-square shapes", () => {
  const next = random(17);
  for (
    const [m, k, n] of [[1, 1, 1], [3, 257, 1], [129, 7, 65], [100, 33, 257], [
      0,
      5,
      3,
    ], [4, 0, 9]]
  ) {
    const a = randomArray(m * k, next), b = randomArray(k * n, next);
    const c = matmulFloat32({ data: a, rows: m, cols: k }, {
      data: b,
      rows: k,
      cols: n,
    });
    assertProduct(c, a, b, [m, k, n]);
  }
});

Deno.test("matmulFloat32() grows its memory and rereads the buffer", () => {
  const next = random(19);
  const small = randomArray(4, next);
  const square = (data: Float32Array, size: number) => ({
    data,
    rows: size,
    cols: size,
  });
  const before = matmulFloat32(square(small, 2), square(small, 2));
  // 600×600 needs over 5 MiB: the memory grows, detaching its old buffer.
  const a = randomArray(600 * 600, next), b = randomArray(600 * 600, next);
  const big = matmulFloat32(square(a, 600), square(b, 600));
  assertEquals(
    big[0],
    matmulFloat32(
      { data: a.subarray(0, 600), rows: 1, cols: 600 },
      { data: b, rows: 600, cols: 600 },
    )[0],
  );
  assertProduct(big.subarray(0, 600), a.subarray(0, 600), b, [1, 600, 600]);
  assertEquals(matmulFloat32(square(small, 2), square(small, 2)), before);
});

Deno.test("matmulFloat32() writes into out and scales by alpha", () => {
  const a = { data: new Float32Array([1, 2, 3, 4]), rows: 2, cols: 2 };
  const out = new Float32Array(4);
  assertEquals(matmulFloat32(a, a, { out, alpha: 0.5 }), out);
  assertEquals([...out], [3.5, 5, 7.5, 11]);
});

Deno.test("matmulFloat32() propagates Infinity and NaN", () => {
  const a = { data: new Float32Array([Infinity, 1, NaN, 1]), rows: 2, cols: 2 };
  const b = { data: new Float32Array([1, 0, 1, 1]), rows: 2, cols: 2 };
  // Infinity·0 is NaN, as in IEEE arithmetic; the padding columns of the
  // packed B never reach C.
  assertEquals([...matmulFloat32(a, b)], [Infinity, NaN, NaN, NaN]);
});

Deno.test("matmulFloat32() rejects mismatched sizes", () => {
  const m2x3 = { data: new Float32Array(6), rows: 2, cols: 3 };
  const m2x2 = { data: new Float32Array(4), rows: 2, cols: 2 };
  assertThrows(() => matmulFloat32(m2x3, m2x2), RangeError);
  assertThrows(
    () => matmulFloat32({ ...m2x2, rows: 3 }, m2x2),
    RangeError,
  );
  assertThrows(
    () => matmulFloat32(m2x2, m2x2, { out: new Float32Array(3) }),
    RangeError,
  );
});

Deno.test("packedBBytes() rounds n up to whole 8-column panels", () => {
  assertEquals(packedBBytes(0, 5), 0);
  assertEquals(packedBBytes(5, 0), 0);
  assertEquals(packedBBytes(2, 8), 64);
  assertEquals(packedBBytes(2, 9), 128);
});

Deno.test("adoptGemmModule() makes a worker use the module it is sent instead of building one", async () => {
  const module = gemmModule(false);
  const worker = new Worker(new URL("./_adopt_worker.ts", import.meta.url), {
    type: "module",
  });
  try {
    const reply = await new Promise<{ same: boolean; c: number[] }>(
      (resolve, reject) => {
        worker.onmessage = (e) => resolve(e.data);
        worker.onerror = (e) => {
          e.preventDefault();
          reject(new Error(e.message));
        };
        worker.postMessage({ module });
      },
    );
    assertEquals(reply, { same: true, c: [1, 2, 3, 4] });
  } finally {
    worker.terminate();
  }
});

Deno.test("adoptGemmModule() refuses a module that is not a GEMM module", () => {
  // The smallest module: no imports at all.
  const empty = new WebAssembly.Module(
    new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]),
  );
  assertThrows(() => adoptGemmModule(false, empty), TypeError, "not a GEMM");
});
