import {
  assert,
  assertEquals,
  assertMatch,
  assertRejects,
  assertThrows,
} from "@std/assert";
import {
  GpuDevice,
  GpuDeviceLostError,
  GpuUnavailable,
} from "../../../kernels/webgpu/gpu_device.ts";
import { GpuBatch } from "../../../kernels/webgpu/gpu_batch.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import { within } from "../../_helpers/within.ts";
import { gpu, gpuMissing, gpuTest, ignoreGpu } from "./_gpu.ts";

Deno.test({
  name: "WebGPU tests have an adapter when RILL_REQUIRE_WEBGPU=1",
  ignore: Deno.env.get("RILL_REQUIRE_WEBGPU") !== "1",
  fn: () => assertEquals(gpuMissing, null),
});

Deno.test("GpuDevice.request() reports a runtime without WebGPU", async () => {
  const none = await GpuDevice.request({ gpu: null });
  if (!(none instanceof GpuUnavailable)) throw new Error("expected none");
  assertEquals(none.reason, "no-webgpu");
  assertEquals(none.explain, "no WebGPU in this runtime");
});

Deno.test("GpuDevice.request() reports a missing adapter", async () => {
  const fake = {
    requestAdapter: () => Promise.resolve(null),
  } as unknown as GPU;
  const none = await GpuDevice.request({ gpu: fake });
  if (!(none instanceof GpuUnavailable)) throw new Error("expected none");
  assertEquals(none.reason, "no-adapter");
  assertEquals(none.explain, "no WebGPU adapter");
});

Deno.test({
  name: "GpuDevice.request() asks for the adapter's limits",
  ...gpuTest,
  fn: async () => {
    const adapter = (await navigator.gpu.requestAdapter())!;
    const device = gpu();
    assertEquals(
      device.limits.maxStorageBufferBindingSize,
      adapter.limits.maxStorageBufferBindingSize,
    );
    assertEquals(device.limits.maxBufferSize, adapter.limits.maxBufferSize);
    assertEquals(
      device.limits.maxComputeWorkgroupStorageSize,
      adapter.limits.maxComputeWorkgroupStorageSize,
    );
    assertEquals(device.hasShaderF16, adapter.features.has("shader-f16"));
    assertEquals(device.isFallbackAdapter, adapter.info.isFallbackAdapter);
  },
});

Deno.test({
  name: "GpuDevice.explain names the adapter kind and description",
  ...gpuTest,
  fn: () => {
    const device = gpu();
    const kind = device.isFallbackAdapter ? "software" : "hardware";
    assertMatch(device.explain, new RegExp(`^${kind} adapter \\(`));
    assert(device.explain.includes(device.description));
  },
});

Deno.test({
  name: "a lost device fails every later call, never hangs",
  ...gpuTest,
  fn: async () => {
    const own = await GpuDevice.request();
    if (!(own instanceof GpuDevice)) throw new Error(own.explain);
    const batch = new GpuBatch(own);
    const t = batch.upload(Tensor.fromArray([1, 2], "float32"));
    // A read-back in flight when the loss happens rejects too.
    const inFlight = batch.read([t]);
    own.destroy();
    await within(5000, assertRejects(() => inFlight));
    const stillWaiting = new Promise<never>(() => {});
    const lost = await within(
      5000,
      assertRejects(() => own.watch(stillWaiting), GpuDeviceLostError),
    ) as GpuDeviceLostError;
    assertEquals(lost.reason, "destroyed");
    assertEquals(own.lost, lost);
    assertThrows(() => own.check(), GpuDeviceLostError);
    assertThrows(() => batch.allocate("float32", [2]), GpuDeviceLostError);
    await within(
      5000,
      assertRejects(() => batch.read([t]), GpuDeviceLostError),
    );
    assertMatch(own.explain, /lost \(destroyed\)$/);
  },
});

Deno.test({
  name: "the GPU tests skip only when there is no adapter",
  fn: () =>
    assertEquals(
      ignoreGpu,
      gpuMissing !== null && Deno.env.get("RILL_REQUIRE_WEBGPU") !== "1",
    ),
});
