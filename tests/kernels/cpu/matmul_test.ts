import { assertEquals, assertThrows } from "@std/assert";
import { matmul, mul2d } from "../../../kernels/cpu/matmul.ts";
import { Tensor } from "../../../kernels/tensor.ts";

// A plain reference: the product of two nested 2-D arrays, in float64.
function reference(a: number[][], b: number[][]): number[][] {
  return a.map((row) =>
    b[0].map((_, j) => row.reduce((s, v, k) => s + v * b[k][j], 0))
  );
}

function iota(n: number, scale = 1): number[] {
  return Array.from({ length: n }, (_, i) => (i - n / 2) * scale);
}

function rows(values: number[], cols: number): number[][] {
  return Array.from(
    { length: values.length / cols },
    (_, i) => values.slice(i * cols, (i + 1) * cols),
  );
}

Deno.test("matmul() multiplies [2, 3] by [3, 4]", () => {
  const a = rows(iota(6), 3), b = rows(iota(12, 0.5), 4);
  const out = matmul(
    Tensor.fromArray(a, "float64"),
    Tensor.fromArray(b, "float64"),
  );
  assertEquals(out.shape, [2, 4]);
  assertEquals(out.toNested(), reference(a, b));
});

Deno.test("matmul() rounds float32 products once per element", () => {
  const f = Math.fround;
  const x = Tensor.fromArray([[0.1, 0.2]], "float32");
  const y = Tensor.fromArray([[0.3], [0.4]], "float32");
  assertEquals(matmul(x, y).item(), f(f(0.1) * f(0.3) + f(0.2) * f(0.4)));
});

Deno.test("matmul() honours transposeX, transposeY and alpha", () => {
  const a = [[1, 2], [3, 4]], b = [[5, 6], [7, 8]];
  const x = Tensor.fromArray(a, "float32"), y = Tensor.fromArray(b, "float32");
  const t = (m: number[][]) => m[0].map((_, j) => m.map((r) => r[j]));
  assertEquals(
    matmul(x, y, { transposeX: true }).toNested(),
    reference(t(a), b),
  );
  assertEquals(
    matmul(x, y, { transposeY: true }).toNested(),
    reference(a, t(b)),
  );
  assertEquals(
    matmul(x, y, { transposeX: true, transposeY: true, alpha: 0.5 }).toNested(),
    reference(t(a), t(b)).map((r) => r.map((v) => v / 2)),
  );
});

Deno.test("matmul() treats 1-D operands as NumPy does", () => {
  const v = Tensor.fromArray([1, 2], "float32");
  const m = Tensor.fromArray([[1, 2], [3, 4]], "float32");
  assertEquals(matmul(v, m).toNested(), [7, 10]);
  assertEquals(matmul(m, v).toNested(), [5, 11]);
  assertEquals(matmul(v, v).toNested(), [5]);
  assertEquals(matmul(v, v).shape, [1]);
  assertEquals(
    matmul(v, v, { transposeX: true, transposeY: true }).toNested(),
    [5],
  );
});

Deno.test("matmul() multiplies batches of [2, 2, 3] by [3, 2]", () => {
  const a = iota(12), b = iota(6, 0.25);
  const out = matmul(
    Tensor.fromArray(a, "float64", [2, 2, 3]),
    Tensor.fromArray(b, "float64", [3, 2]),
  );
  assertEquals(out.shape, [2, 2, 2]);
  assertEquals(out.toNested(), [
    reference(rows(a.slice(0, 6), 3), rows(b, 2)),
    reference(rows(a.slice(6), 3), rows(b, 2)),
  ]);
});

Deno.test("matmul() broadcasts batch dims [2, 1] with [3]", () => {
  const a = iota(2 * 1 * 2 * 2), b = iota(3 * 2 * 2, 0.5);
  const x = Tensor.fromArray(a, "float64", [2, 1, 2, 2]);
  const y = Tensor.fromArray(b, "float64", [3, 2, 2]);
  const out = matmul(x, y);
  assertEquals(out.shape, [2, 3, 2, 2]);
  const expected = [0, 1].map((i) =>
    [0, 1, 2].map((j) =>
      reference(
        rows(a.slice(i * 4, i * 4 + 4), 2),
        rows(b.slice(j * 4, j * 4 + 4), 2),
      )
    )
  );
  assertEquals(out.toNested(), expected);
});

Deno.test("matmul() wraps int32 and keeps int64 exact", () => {
  const x = Tensor.fromArray([[65536, 1]], "int32");
  const y = Tensor.fromArray([[65536], [5]], "int32");
  assertEquals(matmul(x, y).toNested(), [[5]]);
  const bx = Tensor.fromArray([[2n ** 40n, 1n]], "int64");
  const by = Tensor.fromArray([[2n ** 20n], [1n]], "int64");
  assertEquals(matmul(bx, by).toNested(), [[2n ** 60n + 1n]]);
  assertEquals(matmul(bx, by, { alpha: 2 }).toNested(), [[2n ** 61n + 2n]]);
});

Deno.test("matmul() promotes mixed dtypes", () => {
  const out = matmul(
    Tensor.fromArray([[1, 2]], "int32"),
    Tensor.fromArray([[0.5], [0.25]], "float32"),
  );
  assertEquals([out.dtype, out.toNested()], ["float32", [[1]]]);
});

Deno.test("matmul() handles empty dims", () => {
  const out = matmul(
    Tensor.zeros([2, 0], "float32"),
    Tensor.zeros([0, 3], "float32"),
  );
  assertEquals(out.toNested(), [[0, 0, 0], [0, 0, 0]]);
  assertEquals(
    matmul(Tensor.zeros([0, 2, 2], "float32"), Tensor.zeros([2, 2], "float32"))
      .shape,
    [0, 2, 2],
  );
});

Deno.test("matmul() rejects mismatched inner dims, rank 0, bool and fractional integer alpha", () => {
  const m = Tensor.zeros([2, 3], "float32");
  assertThrows(() => matmul(m, m), RangeError);
  assertThrows(
    () => matmul(Tensor.fromArray([1], "float32", []), m),
    RangeError,
  );
  const b = Tensor.zeros([2, 2], "bool");
  assertThrows(() => matmul(b, b), TypeError);
  const i = Tensor.zeros([2, 2], "int32");
  assertThrows(() => matmul(i, i, { alpha: 0.5 }), RangeError);
  assertThrows(
    () =>
      matmul(
        Tensor.zeros([2, 2, 2], "float32"),
        Tensor.zeros([3, 2, 2], "float32"),
      ),
    RangeError,
  );
});

Deno.test("mul2d() flattens [2, 3, 4] at 2 and multiplies by [4, 5]", () => {
  const a = iota(24), b = iota(20, 0.5);
  const out = mul2d(
    Tensor.fromArray(a, "float64", [2, 3, 4]),
    Tensor.fromArray(b, "float64", [4, 5]),
    2,
    1,
  );
  assertEquals(out.shape, [2, 3, 5]);
  const product = reference(rows(a, 4), rows(b, 5)); // [6, 5]
  assertEquals(out.toNested(), [product.slice(0, 3), product.slice(3)]);
});

Deno.test("mul2d() flattens Y at yNumColDims", () => {
  const x = Tensor.fromArray([[1, 2, 3, 4]], "int32");
  const y = Tensor.fromArray(iota(8).map((v) => v + 4), "int32", [2, 2, 2]);
  const out = mul2d(x, y, 1, 2);
  assertEquals(out.shape, [1, 2]);
  assertEquals(
    out.toNested(),
    reference([[1, 2, 3, 4]], rows(iota(8).map((v) => v + 4), 2)),
  );
});

Deno.test("mul2d() rejects bad num_col_dims and mismatched sizes", () => {
  const x = Tensor.zeros([2, 3], "float32");
  assertThrows(() => mul2d(x, x, 2, 1), RangeError);
  assertThrows(() => mul2d(x, x, 0, 1), RangeError);
  assertThrows(() => mul2d(x, x, 1, 1), RangeError);
  assertEquals(mul2d(x, Tensor.zeros([3, 2], "float32")).shape, [2, 2]);
});
