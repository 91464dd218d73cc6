import { assertEquals, assertThrows } from "@std/assert";
import {
  GpuTensor,
  isGpuDType,
  storageBytes,
} from "../../../kernels/webgpu/gpu_tensor.ts";
import { GpuBufferPool } from "../../../kernels/webgpu/gpu_buffer_pool.ts";
import { DTYPES } from "../../../kernels/dtype.ts";
import { gpu, gpuTest } from "./_gpu.ts";

Deno.test("isGpuDType() accepts float32, float16, int32 and bool only", () => {
  assertEquals(DTYPES.filter(isGpuDType), [
    "bool",
    "int32",
    "float16",
    "float32",
  ]);
});

Deno.test("storageBytes() packs float16 two to a word, rounding up", () => {
  assertEquals(
    [0, 1, 2, 3, 33].map((n) => storageBytes("float16", n)),
    [0, 4, 4, 8, 68],
  );
  assertEquals(storageBytes("bool", 3), 12);
  assertEquals(storageBytes("int32", 0), 0);
});

Deno.test({
  name: "GpuTensor holds shape and size, and refuses use after release",
  ...gpuTest,
  fn: () => {
    const pool = new GpuBufferPool(gpu());
    const t = new GpuTensor(pool, "float32", [], pool.acquire(4));
    assertEquals([t.size, t.byteLength, t.released], [1, 4, false]);
    const empty = new GpuTensor(pool, "int32", [3, 0], pool.acquire(0));
    assertEquals(empty.size, 0);
    t.release();
    assertThrows(() => t.buffer, ReferenceError, "used after release");
    assertThrows(
      () => new GpuTensor(pool, "bool", [-1], pool.acquire(4)),
      RangeError,
    );
    assertThrows(
      () => new GpuTensor(pool, "bool", [65], pool.acquire(4)),
      RangeError,
    );
    const half = new GpuTensor(pool, "float16", [129], pool.acquire(260));
    assertEquals(half.byteLength, 260);
    assertThrows(
      () => new GpuTensor(pool, "float16", [513], pool.acquire(1024)),
      RangeError,
    );
  },
});
