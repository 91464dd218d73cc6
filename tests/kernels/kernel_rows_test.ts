// KERNEL_ROWS states facts the pool relies on: a call its rule cuts gives,
// piece by piece on the CPU, the bits of the whole call.

import { assert, assertEquals } from "@std/assert";
import { cpuDevice } from "../../kernels/cpu/device.ts";
import type { Kernels } from "../../kernels/device.ts";
import { KERNEL_ROWS, type RowCut } from "../../kernels/kernel_rows.ts";
import { Tensor } from "../../kernels/tensor.ts";

type AnyKernel = (...args: unknown[]) => Tensor;

const x = Tensor.fromArray(
  Array.from({ length: 24 }, (_, i) => i - 7.5),
  "float32",
  [6, 4],
);
const z = Tensor.fromArray(
  Array.from({ length: 24 }, (_, i) => (i * 5) % 7),
  "float32",
  [6, 4],
);
const row = Tensor.fromArray([1, -2, 3, 0.5], "float32", [4]);
const column = Tensor.fromArray([1, 2, 3, 4, 5, 6], "float32", [6, 1]);

/** Calls of each kernel with a rule, and the cut each should get. */
const CALLS: {
  readonly [K in keyof Kernels]?: [RowCut | undefined, unknown[]][];
} = {
  binary: [["elements", ["mul", x, z, -1]], ["rows", ["add", x, row, -1]], [
    "rows",
    ["div", x, column, -1],
  ]],
  compare: [["elements", ["less_than", x, z, -1]], ["rows", [
    "equal",
    x,
    row,
    -1,
  ]]],
  logical: [["elements", ["and", x, z]], ["rows", ["xor", x, row]]],
  unary: [["elements", ["exp", x]]],
  scale: [["elements", [x, 3, -1, true]]],
  cast: [["elements", [x, "int32"]]],
  softmax: [["rows", [x, -1]], ["rows", [x, 1]], [undefined, [x, 0]]],
  reduce: [
    ["rows", ["sum", x, { dims: [1] }]],
    ["rows", ["max", x, { dims: [-1], keepDim: true }]],
    [undefined, ["sum", x, { dims: [0] }]],
    [undefined, ["mean", x, { dims: [1], reduceAll: true }]],
  ],
  activation: [["elements", ["hard_swish", x, [6, 6, 3]]], ["elements", [
    "gelu",
    x,
    [],
  ]]],
};

// Rows [start, end) of the call: operands that carry the rows are cut,
// the rest passed whole.
function piece(
  args: readonly unknown[],
  cut: RowCut,
  start: number,
  end: number,
): unknown[] {
  const rows = Math.max(
    ...args.filter((a) => a instanceof Tensor).map((t) => t.shape[0]),
  );
  return args.map((a) => {
    if (!(a instanceof Tensor)) return a;
    if (cut === "elements") {
      return Tensor.fromArray([...a.data].slice(start, end), a.dtype, [
        end - start,
      ]);
    }
    if (a.rank < 2 || a.shape[0] !== rows) return a;
    const size = a.size / a.shape[0];
    return Tensor.fromArray(
      [...a.data].slice(start * size, end * size),
      a.dtype,
      [end - start, ...a.shape.slice(1)],
    );
  });
}

Deno.test("KERNEL_ROWS has a checked call of every kernel it names", () => {
  assertEquals(Object.keys(CALLS).sort(), Object.keys(KERNEL_ROWS).sort());
});

Deno.test("KERNEL_ROWS cuts give the whole call's bits, piece by piece", () => {
  for (const [name, calls] of Object.entries(CALLS)) {
    const rule = KERNEL_ROWS[name as keyof Kernels]!;
    const kernel = cpuDevice.kernels[name as keyof Kernels] as AnyKernel;
    const cutOf = rule.cut as (...args: unknown[]) => RowCut | undefined;
    for (const [expected, args] of calls) {
      assert(args[rule.operand] instanceof Tensor, name);
      const cut = cutOf(...args);
      assertEquals(
        cut,
        expected,
        `${name} ${JSON.stringify(args.map(String))}`,
      );
      if (cut === undefined) continue;
      const whole = kernel(...args);
      const count = cut === "elements" ? x.size : x.shape[0];
      const parts = [[0, 2], [2, count]].map(([s, e]) =>
        kernel(...piece(args, cut, s, e))
      );
      assertEquals(parts.flatMap((p) => [...p.data]), [...whole.data], name);
      assertEquals(parts[0].dtype, whole.dtype, name);
    }
  }
});
