// Float32 matrix products in WebAssembly SIMD (f32x4), emitted at load time
// by `module_builder.ts`: C = A·B with A m×k, B k×n and C m×n, all
// row-major float32 at byte offsets in one `WebAssembly.Memory`.
//
// Scheme (the usual sgemm one): B is packed once into column panels of NR
// columns, each k rows of NR contiguous floats, zero-padded on the right.
// `gemm_rows` then walks k in blocks of kc and its rows in blocks of mc,
// copies each mc×kc block of A into the caller's scratch, and for every
// panel and every MR-row strip of the block calls a micro-kernel that keeps
// an MR×NR tile of C in registers: per step of k it loads one panel row
// (NR/4 vectors), splats one A value per row, and does MR·NR/4 f32x4 mul
// and add.
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

import { type Instructions, ModuleBuilder } from "./module_builder.ts";

// Register block: MR rows × NR columns of C, NV = NR/4 vectors per row.
// 4×8 takes 8 accumulators + 2 B vectors + 1 splat of x64's 16 xmm
// registers. Measured at 128–2048²: 5×8 is no faster, 6×8 spills and runs
// at 60%, 3×12 and 2×16 are slower.
const MR = 4;
const NV = 2;
const NR = 4 * NV;
// k steps per pass of the micro-kernel's loop: 1 gives 85% of 4; 8 no more.
const UNROLL = 4;

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

// ---------------------------------------------------------------------------
// Code generation.

function buildGemmModule(shared: boolean): Uint8Array<ArrayBuffer> {
  // 65536 pages is the whole 4 GiB a wasm32 memory can address; a shared
  // import needs some maximum, and the caller's must not exceed it.
  const builder = new ModuleBuilder(
    shared
      ? { shared: true, minPages: 0, maxPages: 65536 }
      : { shared: false, minPages: 0 },
  );
  const kernels: number[] = [];
  for (let mr = 1; mr <= MR; mr++) kernels.push(addMicroKernel(builder, mr));
  addPackB(builder);
  addGemmRows(builder, addPackA(builder), kernels);
  return builder.build();
}

// microkernel_<mr>(a, lda, b, c, ldc, kc, nr, accumulate): C[0:mr, 0:nr]
// (+)= A[0:mr, 0:kc] · Bpanel[0:kc, 0:nr]. `a` and `c` are the tile's first
// elements, `lda`/`ldc` row strides in bytes, `b` the panel's row pc.
// Precondition: 1 <= nr <= NR; kc >= 0.
function addMicroKernel(builder: ModuleBuilder, mr: number): number {
  const rows = [...Array(mr).keys()];
  const halves = [...Array(NV).keys()];
  const locals: Record<string, "i32" | "v128"> = { s: "v128", count: "i32" };
  for (const h of halves) locals[`b${h}`] = "v128";
  for (const r of rows) {
    locals[`a${r}`] = locals[`c${r}`] = "i32";
    for (const h of halves) locals[`acc${r}_${h}`] = "v128";
  }
  const params = i32s("a", "lda", "b", "c", "ldc", "kc", "nr", "accumulate");
  return builder.addFunction({ params, locals }, (c, v) => {
    const acc = (r: number, h: number) => v[`acc${r}_${h}`];
    for (const r of rows) {
      c.localGet(v.a).localGet(v.lda).i32Const(r).i32Mul().i32Add()
        .localSet(v[`a${r}`]);
      c.localGet(v.c).localGet(v.ldc).i32Const(r).i32Mul().i32Add()
        .localSet(v[`c${r}`]);
    }

    // Accumulators start at zero (locals are zero-initialised) or at C.
    c.localGet(v.accumulate).if();
    c.localGet(v.nr).i32Const(NR).i32Eq().if();
    for (const r of rows) {
      for (const h of halves) {
        c.localGet(v[`c${r}`]).v128Load(16 * h).localSet(acc(r, h));
      }
    }
    c.else();
    forEachLane(rows, (r, h, lane, col) => {
      c.localGet(v.nr).i32Const(col).i32GtS().if();
      c.localGet(acc(r, h)).localGet(v[`c${r}`]).f32Load(4 * col)
        .f32x4ReplaceLane(lane).localSet(acc(r, h));
      c.end();
    });
    c.end().end();

    // One k step, `step` steps past the pointers.
    const kStep = (step: number) => {
      for (const h of halves) {
        c.localGet(v.b).v128Load(4 * (step * NR + 4 * h)).localSet(v[`b${h}`]);
      }
      for (const r of rows) {
        c.localGet(v[`a${r}`]).v128Load32Splat(4 * step).localSet(v.s);
        for (const h of halves) {
          c.localGet(acc(r, h)).localGet(v.s).localGet(v[`b${h}`]).f32x4Mul()
            .f32x4Add().localSet(acc(r, h));
        }
      }
    };
    const advance = (steps: number) => {
      for (const r of rows) addTo(c, v[`a${r}`], 4 * steps);
      addTo(c, v.b, 4 * NR * steps);
      addTo(c, v.count, -steps);
    };
    c.localGet(v.kc).localSet(v.count);
    whileTrue(c, () => c.localGet(v.count).i32Const(UNROLL).i32GeS(), () => {
      for (let step = 0; step < UNROLL; step++) kStep(step);
      advance(UNROLL);
    });
    whileTrue(c, () => c.localGet(v.count).i32Const(0).i32GtS(), () => {
      kStep(0);
      advance(1);
    });

    c.localGet(v.nr).i32Const(NR).i32Eq().if();
    for (const r of rows) {
      for (const h of halves) {
        c.localGet(v[`c${r}`]).localGet(acc(r, h)).v128Store(16 * h);
      }
    }
    c.else();
    forEachLane(rows, (r, h, lane, col) => {
      c.localGet(v.nr).i32Const(col).i32GtS().if();
      c.localGet(v[`c${r}`]).localGet(acc(r, h)).f32x4ExtractLane(lane)
        .f32Store(4 * col);
      c.end();
    });
    c.end();
  });
}

// pack_b(b, packed, k, n): panel j0/NR holds columns [j0, j0 + NR) of B as
// k rows of NR floats, at packed + j0 * k * 4; columns past n are zero.
function addPackB(builder: ModuleBuilder): void {
  const params = i32s("b", "packed", "k", "n");
  const locals = {
    j0: "i32",
    nr: "i32",
    src: "i32",
    dst: "i32",
    p: "i32",
    zero: "v128",
  } as const;
  builder.addFunction({ exportAs: "pack_b", params, locals }, (c, v) => {
    c.i32Const(0).localSet(v.j0);
    whileTrue(c, () => c.localGet(v.j0).localGet(v.n).i32LtS(), () => {
      c.localGet(v.n).localGet(v.j0).i32Sub().localSet(v.nr);
      atMost(c, v.nr, () => c.i32Const(NR));
      c.localGet(v.b).localGet(v.j0).i32Const(4).i32Mul().i32Add()
        .localSet(v.src);
      c.localGet(v.packed).localGet(v.j0).localGet(v.k).i32Mul().i32Const(4)
        .i32Mul().i32Add().localSet(v.dst);
      c.i32Const(0).localSet(v.p);
      whileTrue(c, () => c.localGet(v.p).localGet(v.k).i32LtS(), () => {
        c.localGet(v.nr).i32Const(NR).i32Eq().if();
        for (let h = 0; h < NV; h++) {
          c.localGet(v.dst).localGet(v.src).v128Load(16 * h).v128Store(16 * h);
        }
        c.else();
        // Never read past column n: B's last row may end the memory.
        for (let h = 0; h < NV; h++) {
          c.localGet(v.dst).localGet(v.zero).v128Store(16 * h);
        }
        for (let col = 0; col < NR; col++) {
          c.localGet(v.nr).i32Const(col).i32GtS().if();
          c.localGet(v.dst).localGet(v.src).f32Load(4 * col).f32Store(4 * col);
          c.end();
        }
        c.end();
        c.localGet(v.src).localGet(v.n).i32Const(4).i32Mul().i32Add()
          .localSet(v.src);
        addTo(c, v.dst, 4 * NR);
        addTo(c, v.p, 1);
      });
      addTo(c, v.j0, NR);
    });
  });
}

// pack_a(a, lda, rows, kc, dst): copies rows × kc of A (row stride lda
// bytes) to dst, row-major with rows kc·4 bytes apart.
function addPackA(builder: ModuleBuilder): number {
  const params = i32s("a", "lda", "rows", "kc", "dst");
  const locals = i32s("r", "src", "p");
  return builder.addFunction({ params, locals }, (c, v) => {
    c.i32Const(0).localSet(v.r);
    whileTrue(c, () => c.localGet(v.r).localGet(v.rows).i32LtS(), () => {
      c.localGet(v.a).localGet(v.r).localGet(v.lda).i32Mul().i32Add()
        .localSet(v.src);
      c.i32Const(0).localSet(v.p);
      // Four floats at a time while four remain, then one.
      for (const width of [4, 1]) {
        whileTrue(
          c,
          () =>
            c.localGet(v.kc).localGet(v.p).i32Sub().i32Const(width).i32GeS(),
          () => {
            c.localGet(v.dst).localGet(v.src);
            if (width === 4) c.v128Load().v128Store();
            else c.f32Load().f32Store();
            addTo(c, v.src, 4 * width);
            addTo(c, v.dst, 4 * width);
            addTo(c, v.p, width);
          },
        );
      }
      addTo(c, v.r, 1);
    });
  });
}

// gemm_rows(a, packed, c, k, n, r0, r1, kc, mc, scratch): rows [r0, r1) of
// C = A·B. Loop order pc (k block) > ic (row block, copied to scratch) >
// j0 (panel) > strip: one panel's kc rows (kc·NR·4 bytes) stay in L1
// across the strips, and the mc×kc block of A stays in L2 across the
// panels. The copy puts A's rows kc·4 bytes apart whatever k is: read in
// place, rows k·4 bytes apart collide in the caches when k is a large
// power of 2 (25 instead of 40 GFLOPS at 512×4096×512). Row-major beats
// MR-interleaved strips here (40 against 35 GFLOPS).
function addGemmRows(
  builder: ModuleBuilder,
  packA: number,
  kernels: number[],
): void {
  const params = i32s(
    "a",
    "packed",
    "c",
    "k",
    "n",
    "r0",
    "r1",
    "kc",
    "mc",
    "scratch",
  );
  const locals = i32s(
    "lda",
    "ldc",
    "pc",
    "kcur",
    "accumulate",
    "ic",
    "iend",
    "j0",
    "nr",
    "bAddr",
    "aAddr",
    "ir",
    "mr",
  );
  builder.addFunction({ exportAs: "gemm_rows", params, locals }, (c, v) => {
    c.localGet(v.k).i32Const(4).i32Mul().localSet(v.lda);
    c.localGet(v.n).i32Const(4).i32Mul().localSet(v.ldc);
    // A do-while over k blocks, so k = 0 still runs one (zeroing) pass.
    c.i32Const(0).localSet(v.pc);
    c.loop();
    c.localGet(v.k).localGet(v.pc).i32Sub().localSet(v.kcur);
    atMost(c, v.kcur, () => c.localGet(v.kc));
    c.localGet(v.pc).i32Const(0).i32Ne().localSet(v.accumulate);
    c.localGet(v.r0).localSet(v.ic);
    whileTrue(c, () => c.localGet(v.ic).localGet(v.r1).i32LtS(), () => {
      c.localGet(v.ic).localGet(v.mc).i32Add().localSet(v.iend);
      atMost(c, v.iend, () => c.localGet(v.r1));
      c.localGet(v.a).localGet(v.ic).localGet(v.lda).i32Mul().i32Add()
        .localGet(v.pc).i32Const(4).i32Mul().i32Add();
      c.localGet(v.lda).localGet(v.iend).localGet(v.ic).i32Sub()
        .localGet(v.kcur).localGet(v.scratch).call(packA);
      c.i32Const(0).localSet(v.j0);
      whileTrue(c, () => c.localGet(v.j0).localGet(v.n).i32LtS(), () => {
        c.localGet(v.n).localGet(v.j0).i32Sub().localSet(v.nr);
        atMost(c, v.nr, () => c.i32Const(NR));
        c.localGet(v.packed).localGet(v.j0).localGet(v.lda).i32Mul().i32Add()
          .localGet(v.pc).i32Const(4 * NR).i32Mul().i32Add().localSet(v.bAddr);
        c.localGet(v.ic).localSet(v.ir);
        c.localGet(v.scratch).localSet(v.aAddr);
        whileTrue(c, () => c.localGet(v.ir).localGet(v.iend).i32LtS(), () => {
          c.localGet(v.iend).localGet(v.ir).i32Sub().localSet(v.mr);
          atMost(c, v.mr, () => c.i32Const(MR));
          const call = (kernel: number) => {
            c.localGet(v.aAddr).localGet(v.kcur).i32Const(4).i32Mul()
              .localGet(v.bAddr);
            c.localGet(v.c).localGet(v.ir).localGet(v.ldc).i32Mul().i32Add()
              .localGet(v.j0).i32Const(4).i32Mul().i32Add();
            c.localGet(v.ldc).localGet(v.kcur).localGet(v.nr)
              .localGet(v.accumulate).call(kernel);
          };
          // Full strips first; then one branch per short strip height.
          for (let mr = MR; mr > 1; mr--) {
            c.localGet(v.mr).i32Const(mr).i32Eq().if();
            call(kernels[mr - 1]);
            c.else();
          }
          call(kernels[0]);
          for (let mr = MR; mr > 1; mr--) c.end();
          c.localGet(v.aAddr).localGet(v.kcur).i32Const(4 * MR).i32Mul()
            .i32Add().localSet(v.aAddr);
          addTo(c, v.ir, MR);
        });
        addTo(c, v.j0, NR);
      });
      c.localGet(v.ic).localGet(v.mc).i32Add().localSet(v.ic);
    });
    c.localGet(v.pc).localGet(v.kc).i32Add().localTee(v.pc);
    c.localGet(v.k).i32LtS().brIf(0);
    c.end();
  });
}

// while (cond) body; cond and body push nothing net but cond's i32.
function whileTrue(c: Instructions, cond: () => void, body: () => void): void {
  c.block().loop();
  cond();
  c.i32Eqz().brIf(1);
  body();
  c.br(0).end().end();
}

// local = min(local, bound), signed; bound pushes one pure i32.
function atMost(c: Instructions, local: number, bound: () => void): void {
  c.localGet(local);
  bound();
  c.localGet(local);
  bound();
  c.i32LtS().select().localSet(local);
}

function i32s<N extends string>(...names: N[]): Record<N, "i32"> {
  return Object.fromEntries(names.map((n) => [n, "i32"])) as Record<N, "i32">;
}

function addTo(c: Instructions, local: number, delta: number): void {
  c.localGet(local).i32Const(delta).i32Add().localSet(local);
}

function forEachLane(
  rows: readonly number[],
  f: (r: number, h: number, lane: number, col: number) => void,
): void {
  for (const r of rows) {
    for (let col = 0; col < NR; col++) f(r, col >> 2, col & 3, col);
  }
}
