import { assertEquals, assertThrows } from "@std/assert";
import {
  BIG_REDUCE_ALU,
  BINARY_ALU,
  COMPARE_ALU,
  FLOAT_REDUCE_ALU,
  INT_REDUCE_ALU,
  LOGICAL_ALU,
  UNARY_ALU,
} from "../../../kernels/cpu/alu.ts";
import {
  BINARY_KINDS,
  COMPARE_KINDS,
  LOGICAL_KINDS,
  REDUCE_KINDS,
  UNARY_KINDS,
} from "../../../kernels/kernel_kinds.ts";

Deno.test("the ALU tables cover exactly the catalog's kinds", () => {
  const keys = (o: object) => Object.keys(o).sort();
  assertEquals(keys(BINARY_ALU), [...BINARY_KINDS].sort());
  assertEquals(keys(COMPARE_ALU), [...COMPARE_KINDS].sort());
  assertEquals(keys(LOGICAL_ALU), [...LOGICAL_KINDS].sort());
  assertEquals(keys(UNARY_ALU), [...UNARY_KINDS].sort());
  for (const table of [FLOAT_REDUCE_ALU, INT_REDUCE_ALU, BIG_REDUCE_ALU]) {
    assertEquals(keys(table), [...REDUCE_KINDS].sort());
  }
});

Deno.test("BINARY_ALU gives mod the divisor's sign in every domain", () => {
  for (const [a, b, r] of [[5, 3, 2], [-5, 3, 1], [5, -3, -1], [-5, -3, -2]]) {
    assertEquals(BINARY_ALU.mod.int(a, b), r);
    assertEquals(BINARY_ALU.mod.float(a, b), r);
    assertEquals(BINARY_ALU.mod.big(BigInt(a), BigInt(b)), BigInt(r));
  }
  assertEquals(BINARY_ALU.mod.float(-1, Infinity), Infinity);
  assertEquals(BINARY_ALU.mod.float(5.5, 2), 1.5);
});

Deno.test("BINARY_ALU floors floordiv and truncates div in every domain", () => {
  for (
    const [a, b, floor, trunc] of [[7, 2, 3, 3], [-7, 2, -4, -3], [
      7,
      -2,
      -4,
      -3,
    ], [-6, 2, -3, -3]]
  ) {
    assertEquals(BINARY_ALU.floordiv.int(a, b), floor);
    assertEquals(BINARY_ALU.floordiv.big(BigInt(a), BigInt(b)), BigInt(floor));
    assertEquals(BINARY_ALU.div.int(a, b), trunc);
    assertEquals(BINARY_ALU.div.big(BigInt(a), BigInt(b)), BigInt(trunc));
  }
});

Deno.test("BINARY_ALU integer division by zero throws a RangeError", () => {
  for (const kind of ["div", "mod", "floordiv"] as const) {
    assertThrows(() => BINARY_ALU[kind].int(1, 0), RangeError);
    assertThrows(() => BINARY_ALU[kind].big(1n, 0n), RangeError);
  }
});

Deno.test("BINARY_ALU pow wraps large integer powers", () => {
  assertEquals(BINARY_ALU.pow.int(3, 5), 243);
  assertEquals(BINARY_ALU.pow.int(-2, 31), -(2 ** 31));
  assertEquals(BINARY_ALU.pow.big(2n, 64n), 0n);
  // 3^(2^40) is 40 squarings; the result must wrap at every one of them.
  let squared = 3n;
  for (let i = 0; i < 40; i++) squared = BigInt.asIntN(64, squared * squared);
  assertEquals(BINARY_ALU.pow.big(3n, 2n ** 40n), squared);
  assertEquals(BINARY_ALU.pow.big(-1n, -3n), -1n);
  assertEquals(BINARY_ALU.pow.int(5, -1), 0);
});

Deno.test("COMPARE_ALU works on numbers and bigints", () => {
  assertEquals(COMPARE_ALU.greater_equal(2n, 2n), 1);
  assertEquals(COMPARE_ALU.not_equal(1, 2), 1);
  assertEquals(COMPARE_ALU.less_than(NaN, 1), 0);
});

Deno.test("UNARY_ALU marks float-valued kinds by a missing int function", () => {
  const floatOnly = UNARY_KINDS.filter((k) => UNARY_ALU[k].int === undefined);
  assertEquals(floatOnly, [
    "sigmoid",
    "tanh",
    "exp",
    "log",
    "sqrt",
    "sin",
    "cos",
    "reciprocal",
  ]);
  for (const k of UNARY_KINDS) {
    assertEquals(
      UNARY_ALU[k].int === undefined,
      UNARY_ALU[k].big === undefined,
    );
  }
});

Deno.test("reduce ALUs start from each kind's identity", () => {
  assertEquals(FLOAT_REDUCE_ALU.sum.init, 0);
  assertEquals(INT_REDUCE_ALU.prod.init, 1);
  assertEquals(
    BIG_REDUCE_ALU.max.step(BIG_REDUCE_ALU.max.init, -(2n ** 63n)),
    -(2n ** 63n),
  );
  assertEquals(BIG_REDUCE_ALU.prod.step(2n ** 32n, 2n ** 32n), 0n);
  assertEquals(INT_REDUCE_ALU.sum.step(2 ** 31 - 1, 1), -(2 ** 31));
});
