// A worker's trace hooks (runtime/pool/trace_hooks.ts): installing sends
// the GPU's work and the channels' flow ids to the run's tracer; each
// uninstall puts back what was there before, so overlapping traced runs
// leave nothing behind.

import { assert, assertEquals } from "@std/assert";
import { gpuTraceHook } from "../../../kernels/webgpu/gpu_trace.ts";
import { RunTracer } from "../../../runtime/core/run_tracer.ts";
import { installTracer } from "../../../runtime/pool/trace_hooks.ts";
import { channelTracer } from "../../../runtime/pool/traced_codec.ts";

Deno.test("installTracer() hooks the GPU and the channels; uninstall restores", () => {
  const [a, b] = [new RunTracer(), new RunTracer()];
  const first = installTracer(a);
  const hookA = gpuTraceHook;
  assert(hookA !== undefined);
  assertEquals(channelTracer(), a);
  const second = installTracer(b);
  assertEquals(channelTracer(), b);
  second.uninstall();
  assertEquals([channelTracer(), gpuTraceHook], [a, hookA]);
  first.uninstall();
  assertEquals([channelTracer(), gpuTraceHook], [undefined, undefined]);
});

Deno.test("the GPU hook records dispatches, submits and read-backs on the GPU track", () => {
  const tracer = new RunTracer();
  const installed = installTracer(tracer);
  try {
    const start = performance.now();
    gpuTraceHook!.dispatched("add float32", [4, undefined]);
    gpuTraceHook!.submitted(1, "add float32", start);
    gpuTraceHook!.readBack(64, start);
  } finally {
    installed.uninstall();
  }
  const gpu = tracer.finish().filter((e) => e.tid === -1);
  assertEquals(gpu.map((e) => [e.ph, e.name]), [
    ["i", "dispatch add float32"],
    ["X", "submit 1"],
    ["X", "read-back"],
    ["M", "thread_name"],
  ]);
  assertEquals(gpu[0].args?.workgroups, [4]);
  assertEquals(gpu[2].args?.bytes, 64);
});
