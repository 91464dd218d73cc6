import { assertEquals, assertNotStrictEquals, assertThrows } from "@std/assert";
import {
  GpuBufferPool,
  sizeClass,
} from "../../../kernels/webgpu/gpu_buffer_pool.ts";
import { gpu, gpuTest } from "./_gpu.ts";

Deno.test("sizeClass() rounds to powers of two from 256 bytes", () => {
  assertEquals([0, 1, 256, 257, 4096, 5000].map((b) => sizeClass(b)), [
    256,
    256,
    256,
    512,
    4096,
    8192,
  ]);
  assertEquals(sizeClass(5000, 6000), 5120);
});

Deno.test({
  name: "GpuBufferPool reuses a released buffer only after a submit",
  ...gpuTest,
  fn: () => {
    const pool = new GpuBufferPool(gpu());
    const a = pool.acquire(1000);
    assertEquals(a.size, 1024);
    pool.release(a);
    const b = pool.acquire(1000);
    assertNotStrictEquals(b, a);
    pool.submit([]);
    assertEquals(pool.acquire(600), a);
    assertEquals(pool.stats().reused, 1);
    assertEquals(pool.stats().created, 2);
  },
});

Deno.test({
  name: "GpuBufferPool keeps at most maxIdleBytes",
  ...gpuTest,
  fn: () => {
    const pool = new GpuBufferPool(gpu(), { maxIdleBytes: 1024 });
    const buffers = [1024, 1024, 512].map((b) => pool.acquire(b));
    for (const b of buffers) pool.release(b);
    pool.submit([]);
    assertEquals(pool.stats().idleBytes, 1024);
  },
});

Deno.test({
  name: "GpuBufferPool reads many buffers back in one submit",
  ...gpuTest,
  fn: async () => {
    const pool = new GpuBufferPool(gpu());
    const sources = [3, 1, 1000, 0].map((n, i) => ({
      buffer: pool.upload(
        Float32Array.from({ length: n }, (_, j) => i + j / 8),
      ),
      bytes: n * 4,
    }));
    const before = pool.stats().submits;
    const bytes = await pool.readBack(sources);
    assertEquals(pool.stats().submits, before + 1);
    assertEquals([...new Float32Array(bytes[0])], [0, 0.125, 0.25]);
    assertEquals([...new Float32Array(bytes[1])], [1]);
    assertEquals(new Float32Array(bytes[2])[999], 2 + 999 / 8);
    assertEquals(bytes[3].byteLength, 0);
  },
});

Deno.test({
  name: "GpuBufferPool uploads odd byte lengths",
  ...gpuTest,
  fn: async () => {
    const pool = new GpuBufferPool(gpu());
    const data = new Uint8Array([1, 2, 3, 4, 5, 6, 7]);
    const [back] = await pool.readBack([{
      buffer: pool.upload(data),
      bytes: 8,
    }]);
    assertEquals([...new Uint8Array(back)], [1, 2, 3, 4, 5, 6, 7, 0]);
  },
});

Deno.test({
  name: "GpuBufferPool refuses buffers over the binding limit",
  ...gpuTest,
  fn: () => {
    const pool = new GpuBufferPool(gpu());
    const limit = gpu().limits.maxStorageBufferBindingSize;
    assertThrows(() => pool.acquire(limit + 4), RangeError, "binding limit");
  },
});
