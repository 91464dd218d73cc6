import { assertEquals } from "@std/assert";
import { allocate } from "../../kernels/allocate.ts";
import { arrayType, DTYPES } from "../../kernels/dtype.ts";

Deno.test("allocate() gives each dtype its zero-filled storage type", () => {
  for (const d of DTYPES) {
    for (const n of [0, 1, 3, 1000]) {
      const data = allocate(d, n);
      assertEquals(data.constructor, arrayType(d));
      assertEquals(data.length, n);
      assertEquals([...data].every((v) => v === 0 || v === 0n), true);
    }
  }
});

Deno.test("allocate() never hands out overlapping arrays", () => {
  const arrays = Array.from({ length: 2000 }, (_, i) => {
    const data = allocate(
      i % 2 === 0 ? "float64" : "int8",
      (i % 5) + 1,
    ) as Float64Array;
    data.fill(i % 100);
    return data;
  });
  arrays.forEach((data, i) =>
    assertEquals([...data].every((v) => v === i % 100), true)
  );
});

Deno.test("allocate() aligns small arrays to 8 bytes", () => {
  for (const d of DTYPES) {
    allocate("int8", 1);
    assertEquals(allocate(d, 1).byteOffset % 8, 0);
  }
});

Deno.test("allocate() gives large arrays a buffer of their own", () => {
  const data = allocate("float64", 10_000);
  assertEquals(data.byteOffset, 0);
  assertEquals(data.buffer.byteLength, 80_000);
});
