import { assertEquals, assertThrows } from "@std/assert";
import {
  arrayType,
  type DType,
  DTYPES,
  floatRounder,
  isDType,
  isFloatDType,
  isIntegerDType,
  itemSize,
  promoteTypes,
  storageValue,
} from "../../kernels/dtype.ts";

Deno.test("DTYPES lists the nine dtypes once each", () => {
  assertEquals(new Set(DTYPES).size, 9);
  for (const d of DTYPES) assertEquals(isDType(d), true);
});

Deno.test("isDType() rejects other names", () => {
  assertEquals(isDType("complex64"), false);
  assertEquals(isDType("toString"), false);
});

Deno.test("isFloatDType() and isIntegerDType() split the dtypes into kinds", () => {
  const floats = DTYPES.filter(isFloatDType);
  const ints = DTYPES.filter(isIntegerDType);
  assertEquals(floats, ["float16", "float32", "float64"]);
  assertEquals(ints, ["int8", "uint8", "int16", "int32", "int64"]);
});

Deno.test("arrayType() and itemSize() give each dtype's storage", () => {
  const expected: Record<DType, [unknown, number]> = {
    bool: [Uint8Array, 1],
    int8: [Int8Array, 1],
    uint8: [Uint8Array, 1],
    int16: [Int16Array, 2],
    int32: [Int32Array, 4],
    int64: [BigInt64Array, 8],
    float16: [Float16Array, 2],
    float32: [Float32Array, 4],
    float64: [Float64Array, 8],
  };
  for (const d of DTYPES) {
    assertEquals([arrayType(d), itemSize(d)], expected[d]);
  }
});

Deno.test("promoteTypes() is symmetric and idempotent", () => {
  for (const a of DTYPES) {
    assertEquals(promoteTypes(a, a), a);
    for (const b of DTYPES) {
      assertEquals(promoteTypes(a, b), promoteTypes(b, a));
    }
  }
});

Deno.test("promoteTypes() prefers floats, then width", () => {
  assertEquals(promoteTypes("int64", "float32"), "float32");
  assertEquals(promoteTypes("int64", "float16"), "float16");
  assertEquals(promoteTypes("float16", "float64"), "float64");
  assertEquals(promoteTypes("int8", "int64"), "int64");
  assertEquals(promoteTypes("int16", "int32"), "int32");
  assertEquals(promoteTypes("uint8", "int8"), "int16");
  assertEquals(promoteTypes("uint8", "int32"), "int32");
  assertEquals(promoteTypes("uint8", "float16"), "float16");
  for (const d of DTYPES) assertEquals(promoteTypes("bool", d), d);
});

Deno.test("storageValue() converts as C casts do", () => {
  assertEquals(storageValue(-2.7, "int64"), -2n);
  assertEquals(storageValue(NaN, "int64"), 0n);
  assertEquals(storageValue(Infinity, "int64"), 0n);
  assertEquals(storageValue(2n ** 64n + 5n, "int64"), 5n);
  assertEquals(storageValue(true, "int64"), 1n);
  assertEquals(storageValue(false, "float32"), 0);
  assertEquals(storageValue(NaN, "bool"), 1);
  assertEquals(storageValue(-0, "bool"), 0);
  assertEquals(storageValue(0n, "bool"), 0);
  assertEquals(storageValue(2n ** 40n + 7n, "int32"), 7);
  assertEquals(storageValue(2n ** 60n, "float64"), 2 ** 60);
  assertEquals(storageValue(1.5, "int32"), 1.5); // the Int32Array store truncates
});

Deno.test("floatRounder() rounds to each float dtype", () => {
  assertEquals(floatRounder("float32")(0.1), Math.fround(0.1));
  assertEquals(floatRounder("float16")(0.1), Math.f16round(0.1));
  assertEquals(floatRounder("float64")(0.1), 0.1);
  assertThrows(() => floatRounder("int32"), TypeError);
});
