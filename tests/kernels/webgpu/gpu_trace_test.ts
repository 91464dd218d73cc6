// The GPU batch's trace hook (kernels/webgpu/gpu_trace.ts): with a hook
// installed, dispatches, submits and read-backs reach it with their
// kernels and bytes; with none, the batch runs as before.

import { assert, assertEquals } from "@std/assert";
import { GpuBatch } from "../../../kernels/webgpu/gpu_batch.ts";
import { binary } from "../../../kernels/webgpu/elementwise.ts";
import { setGpuTraceHook } from "../../../kernels/webgpu/gpu_trace.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import { gpu, gpuTest } from "./_gpu.ts";

Deno.test({
  name: "GpuBatch tells the trace hook of dispatches, submits and read-backs",
  ...gpuTest,
  fn: async () => {
    const seen: string[] = [];
    const before = performance.now();
    setGpuTraceHook({
      dispatched: (kernel) => seen.push(`dispatch ${kernel}`),
      submitted: (count, _kernels, start) => {
        assert(start >= before);
        seen.push(`submit ${count}`);
      },
      readBack: (bytes, start) => {
        assert(start >= before);
        seen.push(`read-back ${bytes}`);
      },
    });
    try {
      const batch = new GpuBatch(gpu());
      const x = batch.upload(Tensor.fromArray([1, 2, 3, 4], "float32"));
      const y = binary(batch, "add", x, x);
      batch.submit();
      const [back] = await batch.read([y]);
      assertEquals(back.toNested(), [2, 4, 6, 8]);
    } finally {
      setGpuTraceHook(undefined);
    }
    assert(seen[0].startsWith("dispatch "), seen.join(", "));
    assert(seen.includes("submit 1"), seen.join(", "));
    assertEquals(seen.at(-1), "read-back 16");
  },
});
