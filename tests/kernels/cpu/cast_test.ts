import { assertEquals } from "@std/assert";
import { cast } from "../../../kernels/cpu/cast.ts";
import { DTYPES } from "../../../kernels/dtype.ts";
import { Tensor } from "../../../kernels/tensor.ts";

Deno.test("cast() to the same dtype returns the input", () => {
  const x = Tensor.fromArray([1, 2], "float32");
  assertEquals(cast(x, "float32") === x, true);
});

Deno.test("cast() truncates floats toward zero and zeroes non-finite values", () => {
  const x = Tensor.fromArray([-1.7, 1.7, NaN, Infinity, -Infinity], "float64");
  assertEquals(cast(x, "int32").toNested(), [-1, 1, 0, 0, 0]);
  assertEquals(cast(x, "int64").toNested(), [-1n, 1n, 0n, 0n, 0n]);
  assertEquals(cast(x, "int8").toNested(), [-1, 1, 0, 0, 0]);
});

Deno.test("cast() wraps integers to the target width", () => {
  const x = Tensor.fromArray([300, -1, 2 ** 31], "float64");
  assertEquals(cast(x, "int8").toNested(), [44, -1, 0]);
  assertEquals(cast(x, "uint8").toNested(), [44, 255, 0]);
  assertEquals(cast(x, "int32").toNested(), [300, -1, -(2 ** 31)]);
  const big = Tensor.fromArray([2n ** 32n + 5n, -(2n ** 40n) - 1n], "int64");
  assertEquals(cast(big, "int32").toNested(), [5, -1]);
  assertEquals(cast(big, "uint8").toNested(), [5, 255]);
  assertEquals(
    cast(Tensor.scalar(1e19, "float64"), "int64").item(),
    BigInt.asIntN(64, 10n ** 19n),
  );
});

Deno.test("cast() to bool is value != 0", () => {
  const x = Tensor.fromArray([0, -0, 0.5, NaN], "float32");
  assertEquals(cast(x, "bool").toNested(), [false, false, true, true]);
  assertEquals(
    cast(Tensor.fromArray([0n, 2n ** 40n], "int64"), "bool").toNested(),
    [false, true],
  );
  assertEquals(cast(Tensor.fromArray([256, 0], "int32"), "bool").toNested(), [
    true,
    false,
  ]);
});

Deno.test("cast() from bool gives 0 and 1 in every dtype", () => {
  const b = Tensor.fromArray([true, false], "bool");
  for (const d of DTYPES) {
    assertEquals([...cast(b, d).data].map(Number), [1, 0]);
  }
});

Deno.test("cast() rounds to narrower floats", () => {
  const x = Tensor.fromArray([0.1, 70000], "float64");
  assertEquals(cast(x, "float32").toNested(), [Math.fround(0.1), 70000]);
  assertEquals(cast(x, "float16").toNested(), [Math.f16round(0.1), Infinity]);
  assertEquals(
    cast(Tensor.scalar(2n ** 53n + 1n, "int64"), "float64").item(),
    2 ** 53,
  );
});

Deno.test("cast() keeps int64 exact from integers", () => {
  const x = Tensor.fromArray([-(2 ** 31), 2 ** 31 - 1], "int32");
  assertEquals(cast(x, "int64").toNested(), [-(2n ** 31n), 2n ** 31n - 1n]);
  assertEquals(
    cast(Tensor.scalar(2 ** 60, "float64"), "int64").item(),
    2n ** 60n,
  );
});

Deno.test("cast() keeps the shape of rank-0 and empty tensors", () => {
  assertEquals(cast(Tensor.fromArray([1], "int32", []), "float32").shape, []);
  assertEquals(cast(Tensor.zeros([2, 0], "int64"), "float32").shape, [2, 0]);
});
