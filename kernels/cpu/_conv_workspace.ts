// The CPU convolutions' WASM workspace: one module-level memory with the
// gemm kernel (wasm/gemm.ts) and the window kernels (wasm/_window_module.ts)
// instantiated over it, so patches packed by one are multiplied by the
// other in place.
//
// Invariants:
//   The memory is made on first use and grows to the largest call, never
//   shrinking; calls run one at a time on a thread, so a call owns the
//   whole memory until it returns. Read views after `reserve`: a grown
//   memory has a new buffer.
//   One instance of each window module, by filter shape, over the memory.

import { GemmKernel } from "./wasm/gemm.ts";
import { buildWindowModule, type WindowTaps } from "./wasm/_window_module.ts";

const PAGE_BYTES = 65536;

/** The window module's functions (see wasm/_window_module.ts). */
export interface WindowKernels {
  /** Copies packed rows into a padded plane. */
  readonly pad_rows: (
    raw: number,
    padded: number,
    rows: number,
    w: number,
    rawStride: number,
    stride: number,
  ) => void;
  /** One plane's depthwise convolution, four columns at a time. */
  readonly depthwise: (
    padded: number,
    weights: number,
    out: number,
    oh: number,
    ow: number,
    stride: number,
    sh: number,
    dh: number,
  ) => void;
  /** Padded planes' patches, packed into the gemm's panels. */
  readonly pack: (
    padded: number,
    planes: number,
    plane: number,
    packed: number,
    oh: number,
    ow: number,
    stride: number,
    sh: number,
    sw: number,
    dh: number,
  ) => void;
}

let gemm: GemmKernel | undefined;
// Window kernels by "kh×kw×dw".
const windows = new Map<string, WindowKernels>();

/**
 * The workspace's gemm kernel, its memory grown to at least `bytes`.
 *
 * @param bytes The bytes the call will use.
 * @returns The kernel; `kernel.memory` is the workspace.
 *
 * @example Usage
 * ```ts
 * import { reserve } from "./_conv_workspace.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(reserve(100_000).memory.buffer.byteLength >= 100_000, true);
 * assertEquals(reserve(0), reserve(10));
 * ```
 */
export function reserve(bytes: number): GemmKernel {
  gemm ??= new GemmKernel(new WebAssembly.Memory({ initial: 1 }));
  const memory = gemm.memory;
  const missing = Math.ceil(bytes / PAGE_BYTES) -
    memory.buffer.byteLength / PAGE_BYTES;
  if (missing > 0) memory.grow(missing);
  return gemm;
}

/**
 * The window kernels for a filter shape, over the workspace.
 *
 * @param taps The filter's height, width and column dilation.
 * @returns The kernels.
 *
 * @example Usage
 * ```ts
 * import { windowKernels } from "./_conv_workspace.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const taps = { kh: 3, kw: 3, dw: 1 };
 * assertEquals(windowKernels(taps), windowKernels(taps));
 * assertEquals(typeof windowKernels(taps).pack, "function");
 * ```
 */
export function windowKernels(taps: WindowTaps): WindowKernels {
  const key = `${taps.kh}×${taps.kw}×${taps.dw}`;
  let kernels = windows.get(key);
  if (kernels === undefined) {
    const memory = reserve(0).memory;
    const module = new WebAssembly.Module(buildWindowModule(taps));
    const instance = new WebAssembly.Instance(module, { env: { memory } });
    kernels = instance.exports as unknown as WindowKernels;
    windows.set(key, kernels);
  }
  return kernels;
}

/**
 * A byte count rounded up to a multiple of 64 (a cache line, and v128
 * aligned).
 *
 * @param bytes A byte offset.
 * @returns The aligned offset.
 *
 * @example Usage
 * ```ts
 * import { aligned } from "./_conv_workspace.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals([aligned(0), aligned(1), aligned(64)], [0, 64, 64]);
 * ```
 */
export function aligned(bytes: number): number {
  return Math.ceil(bytes / 64) * 64;
}
