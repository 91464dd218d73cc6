// What a traced run installs on a worker for its duration, beyond the
// scheduler's and the ops' own hooks (which the run's objects carry): the
// GPU batch's hook and the channels' traced codec, which are the worker's.
// One traced run at a time per worker: while a second one runs, the GPU's
// and the channels' events go to it; each run's uninstall puts back what
// was there before it.

import {
  gpuTraceHook,
  setGpuTraceHook,
} from "../../kernels/webgpu/gpu_trace.ts";
import type { RunTracer } from "../core/run_tracer.ts";
import { GPU_TRACK } from "../core/trace_event.ts";
import { channelTracer, traceChannelValues } from "./traced_codec.ts";

/** Removes what {@linkcode installTracer} installed. */
export interface InstalledTracer {
  /** Puts the worker back as it was. */
  uninstall(): void;
}

/**
 * Sends this worker's GPU work and shared channel values to `tracer` until
 * `uninstall`.
 *
 * @param tracer The run's tracer on this worker.
 * @returns How to uninstall it.
 *
 * @example Usage
 * ```ts
 * import { installTracer } from "./trace_hooks.ts";
 * import { RunTracer } from "../core/run_tracer.ts";
 * import { gpuTraceHook } from "../../kernels/webgpu/gpu_trace.ts";
 * import { assert } from "@std/assert";
 *
 * const installed = installTracer(new RunTracer());
 * assert(gpuTraceHook !== undefined);
 * installed.uninstall();
 * assert(gpuTraceHook === undefined);
 * ```
 */
export function installTracer(tracer: RunTracer): InstalledTracer {
  const before = { gpu: gpuTraceHook, channels: channelTracer() };
  const at = (ms: number) => tracer.timeOf(ms);
  setGpuTraceHook({
    dispatched(kernel, workgroups) {
      tracer.instant(GPU_TRACK, `dispatch ${kernel}`, "gpu", {
        kernel,
        workgroups: workgroups.filter((n) => n !== undefined),
        thread: tracer.current?.id,
      });
    },
    submitted(count, kernels, start) {
      tracer.span(GPU_TRACK, `submit ${count}`, "gpu", at(start), {
        dispatches: count,
        kernels,
      });
    },
    readBack(bytes, start) {
      tracer.span(GPU_TRACK, "read-back", "gpu", at(start), { bytes });
    },
  });
  traceChannelValues(tracer);
  return {
    uninstall() {
      setGpuTraceHook(before.gpu);
      traceChannelValues(before.channels);
    },
  };
}
