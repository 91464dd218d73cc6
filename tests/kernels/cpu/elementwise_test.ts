import { assertEquals, assertThrows } from "@std/assert";
import {
  binary,
  compare,
  logical,
  logicalNot,
  scale,
  unary,
} from "../../../kernels/cpu/elementwise.ts";
import type {
  BinaryKind,
  CompareKind,
  UnaryKind,
} from "../../../kernels/kernel_kinds.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import { formatTensor } from "../../../kernels/tensor_format.ts";

const f32 = Math.fround;
const f16 = Math.f16round;

// x = [7, -7, 7, -7], y = [2, 2, -2, -2]: every sign combination.
const X = [7, -7, 7, -7];
const Y = [2, 2, -2, -2];

const INTEGER_RESULTS: Record<BinaryKind, number[]> = {
  add: [9, -5, 5, -9],
  sub: [5, -9, 9, -5],
  mul: [14, -14, -14, 14],
  div: [3, -3, -3, 3],
  max: [7, 2, 7, -2],
  min: [2, -7, -2, -7],
  pow: [49, 49, 0, 0],
  mod: [1, 1, -1, -1],
  floordiv: [3, -4, -4, 3],
};

const FLOAT_RESULTS: Record<BinaryKind, number[]> = {
  ...INTEGER_RESULTS,
  div: [3.5, -3.5, -3.5, 3.5],
  pow: [49, 49, 1 / 49, 1 / 49],
};

// --- binary(): every kind in every domain

for (const kind of Object.keys(INTEGER_RESULTS) as BinaryKind[]) {
  Deno.test(`binary() computes "${kind}" on int32 with C division and Python modulo`, () => {
    const out = binary(
      kind,
      Tensor.fromArray(X, "int32"),
      Tensor.fromArray(Y, "int32"),
    );
    assertEquals(out.dtype, "int32");
    assertEquals(out.toNested(), INTEGER_RESULTS[kind]);
  });

  Deno.test(`binary() computes "${kind}" on int64 exactly`, () => {
    const out = binary(
      kind,
      Tensor.fromArray(X, "int64"),
      Tensor.fromArray(Y, "int64"),
    );
    assertEquals(out.dtype, "int64");
    assertEquals(out.toNested(), INTEGER_RESULTS[kind].map(BigInt));
  });

  Deno.test(`binary() computes "${kind}" on float64`, () => {
    const out = binary(
      kind,
      Tensor.fromArray(X, "float64"),
      Tensor.fromArray(Y, "float64"),
    );
    assertEquals(out.toNested(), FLOAT_RESULTS[kind]);
  });

  Deno.test(`binary() computes "${kind}" on float32 rounded to float32`, () => {
    const out = binary(
      kind,
      Tensor.fromArray(X, "float32"),
      Tensor.fromArray(Y, "float32"),
    );
    assertEquals(out.dtype, "float32");
    assertEquals(out.toNested(), FLOAT_RESULTS[kind].map(f32));
  });
}

Deno.test("binary() computes int8, uint8 and int16 kinds with wrapping", () => {
  const x8 = Tensor.fromArray([127, -128], "int8");
  assertEquals(
    binary("add", x8, Tensor.fromArray([1, -1], "int8")).toNested(),
    [-128, 127],
  );
  const u8 = Tensor.fromArray([0, 255], "uint8");
  assertEquals(
    binary("sub", u8, Tensor.fromArray([1, 0], "uint8")).toNested(),
    [255, 255],
  );
  assertEquals(binary("mul", u8, u8).toNested(), [0, 1]);
  const i16 = Tensor.fromArray([300, -300], "int16");
  assertEquals(binary("mul", i16, i16).toNested(), [24464, 24464]);
  assertEquals(
    binary("floordiv", i16, Tensor.fromArray([7], "int16")).toNested(),
    [42, -43],
  );
});

Deno.test("binary() rounds float32 results: 0.1 + 0.2 is float32's 0.3", () => {
  const out = binary(
    "add",
    Tensor.scalar(0.1, "float32"),
    Tensor.scalar(0.2, "float32"),
  );
  assertEquals(out.item(), f32(f32(0.1) + f32(0.2)));
  assertEquals(out.item() === 0.1 + 0.2, false);
  assertEquals(formatTensor(out), "0.3");
});

Deno.test("binary() rounds float16 results to float16", () => {
  const out = binary(
    "mul",
    Tensor.scalar(0.1, "float16"),
    Tensor.scalar(3, "float16"),
  );
  assertEquals(out.dtype, "float16");
  assertEquals(out.item(), f16(f16(0.1) * 3));
});

Deno.test("binary() keeps int64 exact beyond 2^53", () => {
  const big = Tensor.scalar(2n ** 53n + 1n, "int64");
  const one = Tensor.scalar(1n, "int64");
  assertEquals(binary("add", big, one).item(), 2n ** 53n + 2n);
  assertEquals(
    binary("mul", big, big).item(),
    BigInt.asIntN(64, (2n ** 53n + 1n) ** 2n),
  );
  assertEquals(
    binary("div", big, Tensor.scalar(3n, "int64")).item(),
    (2n ** 53n + 1n) / 3n,
  );
  assertEquals(
    binary("pow", Tensor.scalar(3n, "int64"), Tensor.scalar(39n, "int64"))
      .item(),
    3n ** 39n,
  );
});

Deno.test("binary() wraps int32 and int64 overflow", () => {
  const max32 = Tensor.scalar(2 ** 31 - 1, "int32");
  assertEquals(
    binary("add", max32, Tensor.scalar(1, "int32")).item(),
    -(2 ** 31),
  );
  const b16 = Tensor.scalar(65536, "int32");
  assertEquals(binary("mul", b16, b16).item(), 0);
  assertEquals(
    binary("pow", Tensor.scalar(2, "int32"), Tensor.scalar(33, "int32")).item(),
    0,
  );
  const b62 = Tensor.scalar(2n ** 62n, "int64");
  assertEquals(binary("add", b62, b62).item(), -(2n ** 63n));
});

Deno.test("binary() throws a RangeError on integer division by zero", () => {
  for (const dtype of ["int32", "int64", "uint8"] as const) {
    for (const kind of ["div", "mod", "floordiv"] as const) {
      assertThrows(
        () =>
          binary(
            kind,
            Tensor.fromArray([1, 2], dtype),
            Tensor.fromArray([1, 0], dtype),
          ),
        RangeError,
      );
    }
  }
});

Deno.test("binary() follows IEEE for float division by zero", () => {
  const x = Tensor.fromArray([1, -1, 0], "float32");
  const zero = Tensor.scalar(0, "float32");
  assertEquals(binary("div", x, zero).toNested(), [Infinity, -Infinity, NaN]);
  assertEquals(binary("mod", x, zero).toNested(), [NaN, NaN, NaN]);
});

Deno.test("binary() gives integer pow of negative exponents as C truncation does", () => {
  const base = Tensor.fromArray([1, -1, -1, 2], "int32");
  const exp = Tensor.fromArray([-3, -3, -2, -1], "int32");
  assertEquals(binary("pow", base, exp).toNested(), [1, -1, 1, 0]);
  assertThrows(
    () => binary("pow", Tensor.scalar(0, "int64"), Tensor.scalar(-1, "int64")),
    RangeError,
  );
});

Deno.test("binary() propagates NaN through max and min", () => {
  const x = Tensor.fromArray([NaN, 1], "float64");
  const y = Tensor.fromArray([1, NaN], "float64");
  assertEquals(binary("max", x, y).toNested(), [NaN, NaN]);
  assertEquals(binary("min", x, y).toNested(), [NaN, NaN]);
});

// --- binary(): broadcasting and shapes

Deno.test("binary() broadcasts [2, 3] with [3]", () => {
  const x = Tensor.fromArray([[1, 2, 3], [4, 5, 6]], "int32");
  const out = binary("sub", x, Tensor.fromArray([1, 2, 3], "int32"));
  assertEquals(out.toNested(), [[0, 0, 0], [3, 3, 3]]);
});

Deno.test("binary() broadcasts [2, 1] with [1, 3] both ways", () => {
  const x = Tensor.fromArray([[1], [2]], "float32");
  const y = Tensor.fromArray([[10, 20, 30]], "float32");
  assertEquals(binary("mul", x, y).toNested(), [[10, 20, 30], [20, 40, 60]]);
  assertEquals(binary("sub", y, x).toNested(), [[9, 19, 29], [8, 18, 28]]);
});

Deno.test("binary() broadcasts [2, 3, 4] with [3] at Paddle axis 1", () => {
  const x = Tensor.zeros([2, 3, 4], "int32");
  const out = binary("add", x, Tensor.fromArray([1, 2, 3], "int32"), 1);
  assertEquals(out.shape, [2, 3, 4]);
  const row = (v: number) => [v, v, v, v];
  const block = [row(1), row(2), row(3)];
  assertEquals(out.toNested(), [block, block]);
});

Deno.test("binary() drops Y's trailing 1s under Paddle's axis rule", () => {
  const x = Tensor.zeros([2, 3], "int64");
  const out = binary("add", x, Tensor.fromArray([[1], [2], [3]], "int64"), 1);
  assertEquals(out.shape, [2, 3]);
  assertEquals(out.toNested(), [[1n, 2n, 3n], [1n, 2n, 3n]]);
});

Deno.test("binary() aligns X into a higher-rank Y under Paddle's axis rule", () => {
  const y = Tensor.zeros([2, 3, 2], "float64");
  const out = binary("add", Tensor.fromArray([5, 6, 7], "float64"), y, 1);
  assertEquals(out.shape, [2, 3, 2]);
  assertEquals(out.toNested(), [[[5, 5], [6, 6], [7, 7]], [[5, 5], [6, 6], [
    7,
    7,
  ]]]);
});

Deno.test("binary() rejects shapes that do not broadcast", () => {
  const x = Tensor.zeros([2, 3], "float32");
  assertThrows(
    () => binary("add", x, Tensor.zeros([4], "float32")),
    RangeError,
  );
  assertThrows(
    () => binary("add", x, Tensor.zeros([3], "float32"), 0),
    RangeError,
  );
  assertThrows(
    () => binary("add", x, Tensor.zeros([3, 1, 2], "float32"), 1),
    RangeError,
  );
});

Deno.test("binary() handles rank-0 operands", () => {
  const s = Tensor.fromArray([3], "int32", []);
  assertEquals(binary("add", s, s).shape, []);
  assertEquals(binary("add", s, s).toNested(), 6);
  const v = Tensor.fromArray([1, 2], "int32");
  assertEquals(binary("mul", s, v).toNested(), [3, 6]);
  assertEquals(binary("mul", v, s).toNested(), [3, 6]);
});

Deno.test("binary() handles empty tensors", () => {
  const empty = Tensor.zeros([0], "float32");
  assertEquals(binary("add", empty, empty).shape, [0]);
  assertEquals(binary("add", empty, Tensor.scalar(1, "float32")).shape, [0]);
  assertEquals(binary("add", Tensor.scalar(1, "float32"), empty).shape, [0]);
  const out = binary(
    "add",
    Tensor.zeros([2, 0], "int32"),
    Tensor.zeros([2, 1], "int32"),
  );
  assertEquals(out.shape, [2, 0]);
  assertEquals(out.size, 0);
});

Deno.test("binary() gives one-element operands the longer shape", () => {
  const a = Tensor.scalar(2, "float32");
  const b = Tensor.fromArray([[3]], "float32");
  assertEquals(binary("mul", a, b).shape, [1, 1]);
  assertEquals(binary("mul", b, a).shape, [1, 1]);
  assertEquals(binary("mul", a, b).toNested(), [[6]]);
});

Deno.test("binary() leaves its operands unchanged", () => {
  const x = Tensor.fromArray([1, 2], "float32");
  const y = Tensor.fromArray([3, 4], "float32");
  binary("add", x, y);
  assertEquals(x.toNested(), [1, 2]);
  assertEquals(y.toNested(), [3, 4]);
});

// --- binary(): dtypes

Deno.test("binary() promotes mixed dtypes", () => {
  const i64 = Tensor.scalar(3n, "int64");
  const out = binary("div", i64, Tensor.scalar(2, "float32"));
  assertEquals(out.dtype, "float32");
  assertEquals(out.item(), 1.5);
  const b = binary(
    "add",
    Tensor.scalar(true, "bool"),
    Tensor.scalar(2, "int32"),
  );
  assertEquals([b.dtype, b.item()], ["int32", 3]);
  const u = binary("sub", Tensor.scalar(0, "uint8"), Tensor.scalar(1, "int8"));
  assertEquals([u.dtype, u.item()], ["int16", -1]);
});

Deno.test("binary() allows only max and min on two bools", () => {
  const t = Tensor.fromArray([true, false], "bool");
  const f = Tensor.fromArray([false, false], "bool");
  assertEquals(binary("max", t, f).toNested(), [true, false]);
  assertEquals(binary("min", t, f).toNested(), [false, false]);
  assertThrows(() => binary("add", t, f), TypeError);
});

Deno.test("binary() rejects an unknown kind", () => {
  const x = Tensor.scalar(1, "float32");
  assertThrows(() => binary("atan2" as BinaryKind, x, x), TypeError);
});

// --- compare()

const COMPARE_RESULTS: Record<CompareKind, boolean[]> = {
  less_than: [true, false, false],
  less_equal: [true, true, false],
  greater_than: [false, false, true],
  greater_equal: [false, true, true],
  equal: [false, true, false],
  not_equal: [true, false, true],
};

for (const kind of Object.keys(COMPARE_RESULTS) as CompareKind[]) {
  for (const dtype of ["int32", "int64", "float32", "uint8"] as const) {
    Deno.test(`compare() computes "${kind}" on ${dtype} against a scalar`, () => {
      const out = compare(
        kind,
        Tensor.fromArray([1, 2, 3], dtype),
        Tensor.scalar(2, dtype),
      );
      assertEquals(out.dtype, "bool");
      assertEquals(out.toNested(), COMPARE_RESULTS[kind]);
    });
  }
}

Deno.test("compare() tells int64 values apart beyond 2^53", () => {
  const a = Tensor.scalar(2n ** 60n, "int64");
  const b = Tensor.scalar(2n ** 60n + 1n, "int64");
  assertEquals(compare("less_than", a, b).item(), true);
  assertEquals(compare("equal", a, b).item(), false);
});

Deno.test("compare() treats NaN as unordered", () => {
  const nan = Tensor.scalar(NaN, "float64");
  assertEquals(compare("equal", nan, nan).item(), false);
  assertEquals(compare("not_equal", nan, nan).item(), true);
  assertEquals(
    compare("less_equal", nan, Tensor.scalar(1, "float64")).item(),
    false,
  );
});

Deno.test("compare() compares mixed dtypes in the promoted dtype", () => {
  const out = compare(
    "equal",
    Tensor.scalar(0.1, "float32"),
    Tensor.scalar(0.1, "float64"),
  );
  assertEquals(out.item(), false);
  assertEquals(
    compare("equal", Tensor.scalar(3n, "int64"), Tensor.scalar(3, "float64"))
      .item(),
    true,
  );
});

Deno.test("compare() broadcasts [2, 1] with [2] and honours axis", () => {
  const x = Tensor.fromArray([[1], [3]], "int32");
  const y = Tensor.fromArray([2, 3], "int32");
  assertEquals(compare("greater_equal", x, y).toNested(), [[false, false], [
    true,
    true,
  ]]);
  const z = Tensor.fromArray([[1, 2], [3, 4]], "int32");
  assertEquals(
    compare("equal", z, Tensor.fromArray([1, 4], "int32"), 0).toNested(),
    [
      [true, false],
      [false, true],
    ],
  );
});

// --- logical() and logicalNot()

Deno.test("logical() gives every kind's truth table", () => {
  const x = Tensor.fromArray([true, true, false, false], "bool");
  const y = Tensor.fromArray([true, false, true, false], "bool");
  assertEquals(logical("and", x, y).toNested(), [true, false, false, false]);
  assertEquals(logical("or", x, y).toNested(), [true, true, true, false]);
  assertEquals(logical("xor", x, y).toNested(), [false, true, true, false]);
});

Deno.test("logical() reads nonzero non-bool elements as true", () => {
  const x = Tensor.fromArray([0, 2, NaN], "float32");
  const y = Tensor.fromArray([5n, 5n, 0n], "int64");
  assertEquals(logical("and", x, y).toNested(), [false, true, false]);
});

Deno.test("logical() broadcasts [2, 1] with [2]", () => {
  const x = Tensor.fromArray([[true], [false]], "bool");
  const y = Tensor.fromArray([true, false], "bool");
  assertEquals(logical("or", x, y).toNested(), [[true, true], [true, false]]);
});

Deno.test("logicalNot() negates truthiness", () => {
  assertEquals(logicalNot(Tensor.fromArray([true, false], "bool")).toNested(), [
    false,
    true,
  ]);
  assertEquals(logicalNot(Tensor.fromArray([0, -3], "int64")).toNested(), [
    true,
    false,
  ]);
  assertEquals(logicalNot(Tensor.zeros([0], "bool")).shape, [0]);
});

// --- unary()

const UNARY_INPUT = [-2.5, -0.5, 0, 0.5, 2.5];
const UNARY_REFERENCE: Record<UnaryKind, (a: number) => number> = {
  relu: (a) => Math.max(a, 0),
  sigmoid: (a) => 1 / (1 + Math.exp(-a)),
  tanh: Math.tanh,
  exp: Math.exp,
  log: Math.log,
  sqrt: Math.sqrt,
  abs: Math.abs,
  square: (a) => a * a,
  sin: Math.sin,
  cos: Math.cos,
  floor: Math.floor,
  ceil: Math.ceil,
  round: (a) => Math.sign(a) * Math.round(Math.abs(a)),
  reciprocal: (a) => 1 / a,
};

for (const kind of Object.keys(UNARY_REFERENCE) as UnaryKind[]) {
  Deno.test(`unary() computes "${kind}" on float64 and float32`, () => {
    const expected = UNARY_INPUT.map(UNARY_REFERENCE[kind]);
    assertEquals(
      unary(kind, Tensor.fromArray(UNARY_INPUT, "float64")).toNested(),
      expected,
    );
    const out = unary(kind, Tensor.fromArray(UNARY_INPUT, "float32"));
    assertEquals(out.dtype, "float32");
    assertEquals(out.toNested(), expected.map(f32));
  });
}

Deno.test("unary() rounds halves away from zero", () => {
  const x = Tensor.fromArray([
    -2.5,
    -1.5,
    -0.5,
    0.5,
    1.5,
    2.5,
    0.49999999999999994,
  ], "float64");
  assertEquals(unary("round", x).toNested(), [-3, -2, -1, 1, 2, 3, 0]);
});

Deno.test("unary() propagates NaN through relu", () => {
  assertEquals(unary("relu", Tensor.scalar(NaN, "float32")).item(), NaN);
});

Deno.test("unary() keeps integer dtypes for integer-valued kinds", () => {
  const x = Tensor.fromArray([-3, 0, 3], "int32");
  assertEquals(unary("abs", x).toNested(), [3, 0, 3]);
  assertEquals(unary("relu", x).toNested(), [0, 0, 3]);
  assertEquals(unary("square", x).toNested(), [9, 0, 9]);
  assertEquals(unary("floor", x).toNested(), [-3, 0, 3]);
  assertEquals(unary("square", Tensor.scalar(65536, "int32")).item(), 0);
  const big = Tensor.fromArray([-(2n ** 62n), 3n], "int64");
  assertEquals(unary("abs", big).toNested(), [2n ** 62n, 3n]);
  assertEquals(unary("relu", big).toNested(), [0n, 3n]);
  assertEquals(
    unary("square", Tensor.scalar(2n ** 31n, "int64")).item(),
    2n ** 62n,
  );
  assertEquals(unary("ceil", big).dtype, "int64");
  assertEquals(unary("abs", Tensor.fromArray([true], "bool")).toNested(), [
    true,
  ]);
});

Deno.test("unary() computes float-valued kinds on integers as float32", () => {
  const out = unary("sqrt", Tensor.fromArray([2n, 4n], "int64"));
  assertEquals(out.dtype, "float32");
  assertEquals(out.toNested(), [f32(Math.SQRT2), 2]);
  assertEquals(unary("reciprocal", Tensor.scalar(4, "int32")).item(), 0.25);
});

Deno.test("unary() keeps the shape of rank-0 and empty tensors", () => {
  assertEquals(unary("exp", Tensor.fromArray([0], "float32", [])).shape, []);
  assertEquals(unary("exp", Tensor.zeros([2, 0], "float32")).shape, [2, 0]);
});

Deno.test("unary() rejects an unknown kind", () => {
  assertThrows(
    () => unary("erf" as UnaryKind, Tensor.scalar(1, "float32")),
    TypeError,
  );
});

// --- scale()

Deno.test("scale() rounds each step to float32", () => {
  const out = scale(Tensor.scalar(0.1, "float32"), 3, 0.2);
  assertEquals(out.item(), f32(f32(f32(0.1) * 3) + f32(0.2)));
  const before = scale(Tensor.scalar(0.1, "float32"), 3, 0.2, false);
  assertEquals(before.item(), f32(f32(f32(0.1) + f32(0.2)) * 3));
});

Deno.test("scale() truncates scale and bias for integers, as Paddle casts them", () => {
  const x = Tensor.fromArray([1, -2], "int32");
  assertEquals(scale(x, 2.9, 1.5).toNested(), [3, -3]);
  assertEquals(scale(x, 2, 1, false).toNested(), [4, -2]);
});

Deno.test("scale() keeps int64 exact beyond 2^53", () => {
  const x = Tensor.scalar(2n ** 53n, "int64");
  assertEquals(scale(x, 1, 1).item(), 2n ** 53n + 1n);
  assertEquals(scale(x, -2, 0).item(), -(2n ** 54n));
});

Deno.test("scale() rejects bool", () => {
  assertThrows(() => scale(Tensor.scalar(true, "bool"), 2), TypeError);
});

Deno.test("scale() keeps float64 at full precision", () => {
  assertEquals(
    scale(Tensor.scalar(0.1, "float64"), 3, 0.5).item(),
    0.1 * 3 + 0.5,
  );
});
