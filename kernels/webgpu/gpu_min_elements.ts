/**
 * The size rule of WebGPU placement (docs/architecture.md §6), in a module of its own
 * so that choosing a device can read it without loading the WebGPU
 * kernels: a float operand moves to the GPU from this many elements on.
 *
 * @module
 */

/**
 * The least elements for which a float operand moves to the GPU: below
 * it, a dispatch and its share of a read-back cost more than the CPU's
 * kernel.
 *
 * @example Usage
 * ```ts
 * import { GPU_MIN_ELEMENTS } from "./gpu_min_elements.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(GPU_MIN_ELEMENTS, 128 * 128);
 * ```
 */
export const GPU_MIN_ELEMENTS = 16384;
