import { assertEquals, assertRejects, assertThrows } from "@std/assert";
import { GpuBatch } from "../../../kernels/webgpu/gpu_batch.ts";
import { GpuKernelError } from "../../../kernels/webgpu/pipeline_cache.ts";
import { binary, unary } from "../../../kernels/webgpu/elementwise.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import { f16Test, gpu, gpuTest } from "./_gpu.ts";

Deno.test({
  name: "GpuBatch round-trips float32, int32, bool, rank 0 and empty tensors",
  ...gpuTest,
  fn: async () => {
    const batch = new GpuBatch(gpu());
    const inputs = [
      Tensor.fromArray([[1.5, NaN], [-Infinity, -0]], "float32"),
      Tensor.fromArray([-(2 ** 31), 2 ** 31 - 1, 0], "int32"),
      Tensor.fromArray([true, false, true], "bool"),
      Tensor.fromArray([7], "float32", []),
      Tensor.zeros([2, 0], "int32"),
    ];
    const back = await batch.read(inputs.map((t) => batch.upload(t)));
    back.forEach((t, i) => {
      assertEquals(t.dtype, inputs[i].dtype);
      assertEquals(t.shape, inputs[i].shape);
      assertEquals(t.toNested(), inputs[i].toNested());
    });
    assertEquals(Object.is(back[0].item(3), -0), true);
    assertThrows(() => batch.upload(Tensor.zeros([1], "int64")), TypeError);
  },
});

Deno.test({
  name: "GpuBatch round-trips float16 of odd sizes, rank 0 and empty",
  ...f16Test,
  fn: async () => {
    const batch = new GpuBatch(gpu());
    const inputs = [
      Tensor.fromArray(
        [1.5, NaN, -Infinity, -0, 65504, 2 ** -24, 0.1],
        "float16",
      ),
      Tensor.fromArray([3], "float16", []),
      Tensor.fromArray(Array.from({ length: 33 }, (_, i) => i / 7), "float16"),
      Tensor.zeros([0, 5], "float16"),
    ];
    const uploaded = inputs.map((t) => batch.upload(t));
    assertEquals(uploaded.map((t) => t.byteLength), [16, 4, 68, 0]);
    const back = await batch.read(uploaded);
    back.forEach((t, i) => {
      assertEquals([t.dtype, t.shape], ["float16", inputs[i].shape]);
      assertEquals(t.data.length, inputs[i].size);
      assertEquals(t.toNested(), inputs[i].toNested());
    });
    assertEquals(Object.is(back[0].item(3), -0), true);
  },
});

Deno.test({
  name: "GpuBatch encodes a chain in one submit and reads it in one round",
  ...gpuTest,
  fn: async () => {
    const batch = new GpuBatch(gpu());
    const x = batch.upload(Tensor.fromArray([-2, 3], "float32"));
    let y = x;
    for (let i = 0; i < 10; i++) y = binary(batch, "add", y, x);
    const r = unary(batch, "relu", y);
    assertEquals(batch.pendingDispatches, 11);
    const before = batch.pool.stats().submits;
    const [out, same] = await batch.read([r, y]);
    assertEquals(batch.pool.stats().submits, before + 1);
    assertEquals([out.toNested(), same.toNested()], [[0, 33], [-22, 33]]);
  },
});

Deno.test({
  name: "GpuBatch submits early past maxPendingDispatches",
  ...gpuTest,
  fn: async () => {
    const batch = new GpuBatch(gpu(), { maxPendingDispatches: 4 });
    const x = batch.upload(Tensor.fromArray([1], "float32"));
    let y = x;
    for (let i = 0; i < 9; i++) y = binary(batch, "add", y, x);
    assertEquals(batch.pendingDispatches, 1);
    assertEquals(batch.dispatched, 9);
    assertEquals((await batch.read([y]))[0].toNested(), [10]);
  },
});

Deno.test({
  name: "GpuBatch.read() reports a broken kernel by name",
  ...gpuTest,
  fn: async () => {
    const batch = new GpuBatch(gpu());
    const out = batch.allocate("float32", [1]);
    const pipeline = batch.pipelines.get(
      { op: "broken", dtype: "float32" },
      () => "@compute @workgroup_size(1) fn main() { let x: f32 = 1u; }",
    );
    batch.dispatch({
      pipeline,
      buffers: [out.buffer],
      params: new Uint32Array(1),
      workgroups: [1],
    });
    const e = await assertRejects(() => batch.read([out]), GpuKernelError);
    assertEquals(e.op, "broken");
  },
});
