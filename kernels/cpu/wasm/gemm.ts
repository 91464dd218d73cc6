// Float32 matrix products in WebAssembly SIMD (f32x4), emitted at load time
// by `module_builder.ts`: C = A·B with A m×k, B k×n and C m×n, all
// row-major float32 at byte offsets in one `WebAssembly.Memory`.
//
// The module itself is built in `_gemm_module.ts`.
//
// Invariants:
//   Packed B is only read once packed, so any number of instances over one
//   shared memory may compute disjoint row ranges of the same C at once,
//   each with its own scratch.
//   `gemm_rows` writes only rows [r0, r1) of C and its scratch; edge tiles
//   (fewer than NR columns or MR rows) store only real elements, and no
//   read goes past the last element of A or B.
//   The first k block overwrites C and later ones add to it; with k = 0 one
//   empty block still runs, so C comes out zero.
//   Each element is a float32 sum over k in increasing order (one rounding
//   per mul and per add), whatever the row range, so split and unsplit
//   products give the same bits.

import { buildGemmModule, NR } from "./_gemm_module.ts";

// Block sizes. A kc-step panel slice (kc·NR·4 = 8 KiB) stays in L1 and the
// copied mc×kc block of A (128 KiB) in L2. Up to 1024² the choice is within
// noise (±10% here); at 2048² no blocking runs at 60%, kc = 128 at 90%.
const KC = 256;
const MC = 128;

const PAGE_BYTES = 65536;

/**
 * The byte size of B (k×n) packed by {@linkcode GemmKernel.packB}: n
 * rounded up to a multiple of 8 columns, times k rows, float32.
 *
 * @param k The rows of B.
 * @param n The columns of B.
 * @returns The bytes the packed copy takes.
 *
 * @example Usage
 * ```ts
 * import { packedBBytes } from "./gemm.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(packedBBytes(3, 9), 3 * 16 * 4);
 * ```
 */
export function packedBBytes(k: number, n: number): number {
  return Math.ceil(n / NR) * NR * k * 4;
}

/** Block sizes of {@linkcode GemmKernel.computeRows}. */
export interface GemmBlocking {
  /** The k block: steps of k per pass over C. @default {256} */
  readonly kc?: number;
  /** The row block: rows of A copied per pass over packed B. @default {128} */
  readonly mc?: number;
}

/**
 * The byte size of the scratch space one caller of
 * {@linkcode GemmKernel.computeRows} needs: one mc×kc block of A.
 *
 * @param blocking The block sizes the caller will pass.
 * @returns The bytes of scratch.
 *
 * @example Usage
 * ```ts
 * import { gemmScratchBytes } from "./gemm.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(gemmScratchBytes(), 128 * 256 * 4);
 * assertEquals(gemmScratchBytes({ kc: 8, mc: 4 }), 128);
 * ```
 */
export function gemmScratchBytes(blocking: GemmBlocking = {}): number {
  const { kc = KC, mc = MC } = blocking;
  return kc * mc * 4;
}

// One compiled module per sharing mode: an import's `shared` flag must
// match the memory's.
const modules = new Map<boolean, WebAssembly.Module>();

/**
 * The compiled GEMM module for a shared or an unshared memory, built on
 * first use and cached.
 *
 * @param shared Whether it will run over a `shared` memory.
 * @returns The module; it imports `env.memory`.
 *
 * @example Usage
 * ```ts
 * import { gemmModule } from "./gemm.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(gemmModule(true), gemmModule(true));
 * assertEquals(WebAssembly.Module.imports(gemmModule(true)).length, 1);
 * ```
 */
export function gemmModule(shared: boolean): WebAssembly.Module {
  let module = modules.get(shared);
  if (module === undefined) {
    module = new WebAssembly.Module(buildGemmModule(shared));
    modules.set(shared, module);
  }
  return module;
}

/**
 * Makes `module` the compiled GEMM module for its sharing mode here, unless
 * one is already built: a pool worker adopts the modules its main thread
 * compiled (a `WebAssembly.Module` crosses `postMessage` as it is) instead
 * of building and compiling its own on its first product.
 *
 * @param shared Whether `module` imports a `shared` memory.
 * @param module A module `gemmModule(shared)` returned on another thread.
 * @throws {TypeError} If `module` does not import one memory as `env.memory`.
 *
 * @example Usage
 * ```ts
 * import { adoptGemmModule, gemmModule } from "./gemm.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const module = gemmModule(false);
 * adoptGemmModule(false, module); // already built here: kept as it is
 * assertEquals(gemmModule(false), module);
 * ```
 */
export function adoptGemmModule(
  shared: boolean,
  module: WebAssembly.Module,
): void {
  const imports = WebAssembly.Module.imports(module);
  if (
    imports.length !== 1 || imports[0].module !== "env" ||
    imports[0].name !== "memory" || imports[0].kind !== "memory"
  ) {
    throw new TypeError("adoptGemmModule: not a GEMM module");
  }
  if (!modules.has(shared)) modules.set(shared, module);
}

/** Where {@linkcode GemmKernel.packB} reads B and writes its packed copy. */
export interface PackBLayout {
  /** Byte offset of B, k×n row-major float32. */
  readonly b: number;
  /** Byte offset of the packed copy, {@linkcode packedBBytes} long. */
  readonly packedB: number;
  /** The rows of B. */
  readonly k: number;
  /** The columns of B. */
  readonly n: number;
}

/** Where {@linkcode GemmKernel.computeRows} finds A, packed B and C. */
export interface GemmLayout {
  /** Byte offset of A, m×k row-major float32. */
  readonly a: number;
  /** Byte offset of B as packed by {@linkcode GemmKernel.packB}. */
  readonly packedB: number;
  /** Byte offset of C, m×n row-major float32. */
  readonly c: number;
  /** The rows of A and C. */
  readonly m: number;
  /** The columns of A and rows of B. */
  readonly k: number;
  /** The columns of B and C. */
  readonly n: number;
}

/** Options of {@linkcode GemmKernel.computeRows}. */
export interface ComputeRowsOptions extends GemmBlocking {
  /**
   * Byte offset of this caller's scratch space, {@linkcode gemmScratchBytes}
   * long, which no other caller uses at the same time.
   */
  readonly scratch: number;
  /** The first row of C to compute. @default {0} */
  readonly start?: number;
  /** One past the last row of C to compute. @default {m} */
  readonly end?: number;
}

type PackB = (b: number, packed: number, k: number, n: number) => void;
type GemmRows = (
  a: number,
  packed: number,
  c: number,
  k: number,
  n: number,
  r0: number,
  r1: number,
  kc: number,
  mc: number,
  scratch: number,
) => void;

/**
 * The GEMM kernel instantiated over one memory. Several instances (say one
 * per Worker) over one `shared` memory may compute disjoint row ranges of
 * the same product at once, from one packed B, each with its own scratch.
 * Offsets are bytes; sizes and offsets must lie within the memory.
 *
 * @example Usage
 * ```ts
 * import { GemmKernel, gemmScratchBytes, packedBBytes } from "./gemm.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const memory = new WebAssembly.Memory({ initial: 3 });
 * const f32 = new Float32Array(memory.buffer);
 * f32.set([1, 2, 3, 4], 0); // A, 2×2
 * f32.set([5, 6, 7, 8], 4); // B, 2×2
 * const packedB = 32, c = packedB + packedBBytes(2, 2), scratch = c + 16;
 * const layout = { a: 0, b: 16, packedB, c, m: 2, k: 2, n: 2 };
 * const kernel = new GemmKernel(memory);
 * kernel.packB(layout);
 * kernel.computeRows(layout, { scratch, start: 0, end: 1 });
 * kernel.computeRows(layout, { scratch, start: 1, end: 2 });
 * assertEquals([...f32.subarray(c / 4, c / 4 + 4)], [19, 22, 43, 50]);
 * assertEquals(scratch + gemmScratchBytes() <= memory.buffer.byteLength, true);
 * ```
 */
export class GemmKernel {
  /** The memory the kernel reads and writes. */
  readonly memory: WebAssembly.Memory;
  #packB: PackB;
  #gemmRows: GemmRows;

  /**
   * Instantiates the kernel over `memory`.
   *
   * @param memory A shared or unshared memory; it may grow later.
   */
  constructor(memory: WebAssembly.Memory) {
    const shared = memory.buffer instanceof SharedArrayBuffer;
    const instance = new WebAssembly.Instance(gemmModule(shared), {
      env: { memory },
    });
    this.memory = memory;
    this.#packB = instance.exports.pack_b as PackB;
    this.#gemmRows = instance.exports.gemm_rows as GemmRows;
  }

  /**
   * Packs B for {@linkcode GemmKernel.computeRows}. The two regions must
   * not overlap.
   *
   * @param layout Where B is and where its packed copy goes.
   *
   * @example Usage
   * ```ts
   * import { GemmKernel } from "./gemm.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const memory = new WebAssembly.Memory({ initial: 1 });
   * const f32 = new Float32Array(memory.buffer);
   * f32.set([1, 2, 3, 4, 5, 6]); // B, 2×3
   * new GemmKernel(memory).packB({ b: 0, packedB: 64, k: 2, n: 3 });
   * assertEquals([...f32.subarray(16, 32)], [1, 2, 3, 0, 0, 0, 0, 0, 4, 5, 6, 0, 0, 0, 0, 0]);
   * ```
   */
  packB(layout: PackBLayout): void {
    this.#packB(layout.b, layout.packedB, layout.k, layout.n);
  }

  /**
   * Computes rows `[start, end)` of C = A·B from packed B, accumulating in
   * float32. Other rows of C are not touched.
   *
   * @param layout Where A, packed B and C are, and the sizes.
   * @param options The scratch space, the row range and the blocking.
   * @throws {RangeError} If the row range is outside `[0, m]` or a block
   * size is not a positive integer.
   *
   * @example Usage
   * ```ts
   * import { GemmKernel } from "./gemm.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const memory = new WebAssembly.Memory({ initial: 3 });
   * const f32 = new Float32Array(memory.buffer);
   * f32.set([2, 3]); // A, 2×1
   * f32[8] = 10; // B, 1×1, at byte 32
   * const kernel = new GemmKernel(memory);
   * kernel.packB({ b: 32, packedB: 64, k: 1, n: 1 });
   * const layout = { a: 0, packedB: 64, c: 128, m: 2, k: 1, n: 1 };
   * kernel.computeRows(layout, { scratch: 256 });
   * assertEquals([...f32.subarray(32, 34)], [20, 30]);
   * ```
   */
  computeRows(layout: GemmLayout, options: ComputeRowsOptions): void {
    const { scratch, start = 0, end = layout.m, kc = KC, mc = MC } = options;
    if (!(0 <= start && start <= end && end <= layout.m)) {
      throw new RangeError(
        `compute gemm rows: range [${start}, ${end}) is outside [0, ${layout.m}]`,
      );
    }
    if (!(Number.isInteger(kc) && kc > 0 && Number.isInteger(mc) && mc > 0)) {
      throw new RangeError(
        `compute gemm rows: block sizes kc ${kc} and mc ${mc} are not positive integers`,
      );
    }
    const { a, packedB, c, k, n } = layout;
    this.#gemmRows(a, packedB, c, k, n, start, end, kc, mc, scratch);
  }
}

/** A row-major float32 matrix. */
export interface Float32Matrix {
  /** The elements, `rows * cols` of them. */
  readonly data: Float32Array;
  /** The number of rows. */
  readonly rows: number;
  /** The number of columns. */
  readonly cols: number;
}

/** Options of {@linkcode matmulFloat32}. */
export interface MatmulFloat32Options {
  /** Where to write the product; a new array if absent. */
  readonly out?: Float32Array;
  /** Multiply the product by this, after rounding it. @default {1} */
  readonly alpha?: number;
}

// The single-thread kernel and its private, growable memory. It grows to
// the largest product seen and never shrinks.
let localKernel: GemmKernel | undefined;

/**
 * Multiplies two float32 matrices on this thread with the WASM kernel,
 * copying them into a module-level memory and the product out of it.
 *
 * @param a The left matrix, m×k.
 * @param b The right matrix, k×n.
 * @param options Where to write the m×n product and a scale factor.
 * @returns The product: `options.out` if given.
 * @throws {RangeError} If a matrix's data has the wrong length, the inner
 * sizes differ, or `out` is not m×n.
 *
 * @example Usage
 * ```ts
 * import { matmulFloat32 } from "./gemm.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const a = { data: new Float32Array([1, 2, 3, 4, 5, 6]), rows: 2, cols: 3 };
 * const b = { data: new Float32Array([1, 0, 0, 1, 1, 1]), rows: 3, cols: 2 };
 * assertEquals([...matmulFloat32(a, b)], [4, 5, 10, 11]);
 * ```
 */
export function matmulFloat32(
  a: Float32Matrix,
  b: Float32Matrix,
  options: MatmulFloat32Options = {},
): Float32Array {
  const m = a.rows, k = a.cols, n = b.cols;
  for (const x of [a, b]) {
    if (x.data.length !== x.rows * x.cols) {
      throw new RangeError(
        `multiply float32 matrices: ${x.rows}×${x.cols} matrix has ${x.data.length} elements`,
      );
    }
  }
  if (b.rows !== k) {
    throw new RangeError(
      `multiply float32 matrices: inner sizes ${k} and ${b.rows} differ`,
    );
  }
  const out = options.out ?? new Float32Array(m * n);
  if (out.length !== m * n) {
    throw new RangeError(
      `multiply float32 matrices: out has ${out.length} elements, not ${m}×${n}`,
    );
  }

  // Scratch first, then A, B, packed B and C, each 64-byte aligned.
  const at = (bytes: number) => Math.ceil(bytes / 64) * 64;
  const scratch = 0;
  const aAt = at(gemmScratchBytes());
  const bAt = at(aAt + 4 * m * k);
  const packedB = at(bAt + 4 * k * n);
  const c = at(packedB + packedBBytes(k, n));
  const end = c + 4 * m * n;

  localKernel ??= new GemmKernel(new WebAssembly.Memory({ initial: 1 }));
  const memory = localKernel.memory;
  const missing = Math.ceil(end / PAGE_BYTES) -
    memory.buffer.byteLength / PAGE_BYTES;
  if (missing > 0) memory.grow(missing);
  // Read after growing: a grown memory has a new buffer and the old one is
  // detached.
  const f32 = new Float32Array(memory.buffer);
  f32.set(a.data, aAt / 4);
  f32.set(b.data, bAt / 4);
  const layout = { a: aAt, b: bAt, packedB, c, m, k, n };
  localKernel.packB(layout);
  localKernel.computeRows(layout, { scratch });
  const product = f32.subarray(c / 4, c / 4 + m * n);
  const alpha = options.alpha ?? 1;
  if (alpha === 1) {
    out.set(product);
  } else {
    for (let i = 0; i < product.length; i++) out[i] = alpha * product[i];
  }
  return out;
}
