import { assertEquals, assertRejects, assertStrictEquals } from "@std/assert";
import {
  GpuKernelError,
  PipelineCache,
} from "../../../kernels/webgpu/pipeline_cache.ts";
import { gpu, gpuTest } from "./_gpu.ts";

const NOOP = "@compute @workgroup_size(1) fn main() {}";

Deno.test({
  name: "PipelineCache compiles each key once",
  ...gpuTest,
  fn: async () => {
    const cache = new PipelineCache(gpu());
    let builds = 0;
    const wgsl = () => (builds++, NOOP);
    const a = cache.get({ op: "elementwise_add", dtype: "float32" }, wgsl);
    assertStrictEquals(
      cache.get({ op: "elementwise_add", dtype: "float32" }, wgsl),
      a,
    );
    cache.get({ op: "elementwise_add", dtype: "int32" }, wgsl);
    cache.get({ op: "elementwise_add", dtype: "float32", variant: "v" }, wgsl);
    // "a_b" + "c" and "a" + "b_c" stay distinct keys.
    cache.get({ op: "a_b", dtype: "c" }, wgsl);
    cache.get({ op: "a", dtype: "b_c" }, wgsl);
    assertEquals([builds, cache.compiled], [5, 5]);
    await cache.check();
  },
});

Deno.test({
  name: "PipelineCache.check() names the kernel whose WGSL fails",
  ...gpuTest,
  fn: async () => {
    const cache = new PipelineCache(gpu());
    const key = { op: "matmul", dtype: "float32", variant: "broken" };
    cache.get(key, () => "fn main( {");
    const e = await assertRejects(() => cache.check(), GpuKernelError);
    assertEquals([e.op, e.dtype, e.variant], ["matmul", "float32", "broken"]);
    await cache.check();
    // The failed key is compiled (and reported) again on its next use.
    cache.get(key, () => "fn main( {");
    assertEquals(cache.compiled, 2);
    await assertRejects(() => cache.check(), GpuKernelError);
  },
});
