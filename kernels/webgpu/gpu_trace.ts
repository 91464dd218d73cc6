// Where a run trace learns what the GPU batch does: dispatches as they are
// recorded, submits, and read-backs with their bytes and how long they
// waited. The runtime installs a hook only while a traced run runs; with
// none, the batch pays one branch per dispatch, submit and read-back.

/**
 * Receives the GPU batch's work, on the thread that records it. Times are
 * `performance.now()` milliseconds.
 *
 * @example Usage
 * ```ts
 * import { type GpuTraceHook, gpuTraceHook, setGpuTraceHook } from "./gpu_trace.ts";
 * import { assert } from "@std/assert";
 *
 * const hook: GpuTraceHook = {
 *   dispatched: () => {},
 *   submitted: () => {},
 *   readBack: () => {},
 * };
 * setGpuTraceHook(hook);
 * assert(gpuTraceHook === hook);
 * setGpuTraceHook(undefined);
 * ```
 */
export interface GpuTraceHook {
  /** A dispatch of `kernel` with `workgroups` was recorded. */
  dispatched(kernel: string, workgroups: readonly (number | undefined)[]): void;
  /** `count` dispatches were encoded and submitted from `start` until now. */
  submitted(count: number, kernels: string, start: number): void;
  /** `bytes` were read back from `start` until now. */
  readBack(bytes: number, start: number): void;
}

/**
 * The hook of the traced run in progress, if any.
 *
 * @example Usage
 * ```ts
 * import { gpuTraceHook } from "./gpu_trace.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(gpuTraceHook, undefined);
 * ```
 */
export let gpuTraceHook: GpuTraceHook | undefined = undefined;

/**
 * Installs (or, with `undefined`, removes) the GPU trace hook.
 *
 * @param hook The hook.
 *
 * @example Usage
 * ```ts
 * import { setGpuTraceHook } from "./gpu_trace.ts";
 *
 * setGpuTraceHook(undefined);
 * ```
 */
export function setGpuTraceHook(hook: GpuTraceHook | undefined): void {
  gpuTraceHook = hook;
}
