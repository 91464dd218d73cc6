import { assertEquals, assertRejects } from "@std/assert";
import {
  elementwiseAdd,
  elementwiseMul,
  Executor,
  fillConstant,
  increment,
  lessThan,
  Program,
  whileLoop,
} from "../../../mod.ts";
import { cpuDevice } from "../../../kernels/cpu/device.ts";
import type { Device } from "../../../kernels/device.ts";
import {
  type BinaryKind,
  COMPARE_KINDS,
} from "../../../kernels/kernel_kinds.ts";
import type { DType } from "../../../kernels/dtype.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import {
  scalarArithmetic,
  scalarComparison,
} from "../../../runtime/ops/scalar_path.ts";
import { Panic } from "../../../scheduler/panic.ts";
import { int64 } from "../../_helpers/int64.ts";
import { runForTensors } from "../../_helpers/run_program.ts";

// Operand pairs where a fast path could differ from the kernel: wrapping,
// rounding, NaN, signed zeros, the ends of each range.
const PAIRS: Record<string, [number | bigint, number | bigint][]> = {
  int64: [
    [2n ** 63n - 1n, 1n],
    [-(2n ** 63n), -1n],
    [2n ** 40n, 2n ** 40n],
    [-7n, 3n],
    [0n, 0n],
  ],
  int32: [[2147483647, 1], [-2147483648, -1], [65536, 65536], [-7, 3]],
  float32: [[0.1, 0.2], [3.4e38, 3.4e38], [NaN, 1], [-0, 0], [1e-45, 1]],
  float64: [[0.1, 0.2], [1.7e308, 1.7e308], [NaN, NaN], [-0, 0]],
};
const ARITHMETIC: BinaryKind[] = ["add", "sub", "mul"];

function sameTensor(actual: Tensor | undefined, expected: Tensor): void {
  if (actual === undefined) throw new Error("the scalar path did not apply");
  assertEquals(actual.dtype, expected.dtype);
  assertEquals(actual.shape, expected.shape);
  assertEquals(
    new Uint8Array(
      actual.data.buffer,
      actual.data.byteOffset,
      actual.data.byteLength,
    ),
    new Uint8Array(
      expected.data.buffer,
      expected.data.byteOffset,
      expected.data.byteLength,
    ),
  );
}

Deno.test("scalarArithmetic() gives the CPU kernel's bits for every dtype it takes", () => {
  for (const kind of ARITHMETIC) {
    const path = scalarArithmetic(kind)!;
    for (const [dtype, pairs] of Object.entries(PAIRS)) {
      for (const [a, b] of pairs) {
        const x = Tensor.scalar(a, dtype as DType);
        const y = Tensor.fromArray([b], dtype as DType, []);
        sameTensor(
          path(cpuDevice, x, y),
          cpuDevice.kernels.binary(kind, x, y, -1),
        );
        sameTensor(
          path(cpuDevice, y, x),
          cpuDevice.kernels.binary(kind, y, x, -1),
        );
      }
    }
  }
});

Deno.test("scalarArithmetic() writes into a given tensor of its result's dtype and rank", () => {
  for (const kind of ARITHMETIC) {
    const path = scalarArithmetic(kind)!;
    for (const [dtype, pairs] of Object.entries(PAIRS)) {
      for (const [a, b] of pairs) {
        const y = Tensor.scalar(b, dtype as DType);
        const into = Tensor.scalar(a, dtype as DType); // also the left operand
        const expected = cpuDevice.kernels.binary(kind, into, y, -1);
        const made = path(cpuDevice, into, y, into);
        assertEquals(made === into, true);
        sameTensor(made, expected);
      }
    }
  }
  const add = scalarArithmetic("add")!;
  const one = Tensor.scalar(1, "int32");
  const rank0 = Tensor.fromArray([5], "int32", []);
  const other = Tensor.scalar(1, "float32");
  assertEquals(add(cpuDevice, one, one, rank0) === rank0, false);
  assertEquals(add(cpuDevice, one, one, other) === other, false);
  assertEquals(rank0.item(0), 5);
});

Deno.test("scalarComparison() gives the CPU kernel's bools for every dtype it takes", () => {
  for (const kind of COMPARE_KINDS) {
    const path = scalarComparison(kind);
    for (const [dtype, pairs] of Object.entries(PAIRS)) {
      for (const [a, b] of pairs) {
        const x = Tensor.scalar(a, dtype as DType);
        const y = Tensor.scalar(b, dtype as DType);
        sameTensor(
          path(cpuDevice, x, y),
          cpuDevice.kernels.compare(kind, x, y, -1),
        );
        sameTensor(
          path(cpuDevice, y, x),
          cpuDevice.kernels.compare(kind, y, x, -1),
        );
      }
    }
  }
});

Deno.test("scalarArithmetic() and scalarComparison() leave other calls to the kernel", () => {
  const add = scalarArithmetic("add")!;
  const less = scalarComparison("less_than");
  const gpu: Device = { name: "webgpu", kernels: cpuDevice.kernels };
  const one = Tensor.scalar(1, "int32");
  const cases: [Device, Tensor, Tensor][] = [
    [cpuDevice, one, Tensor.scalar(1, "int64")], // mixed dtypes promote
    [cpuDevice, one, Tensor.fromArray([1, 2], "int32")], // broadcasts
    [cpuDevice, Tensor.scalar(1, "int8"), Tensor.scalar(1, "int8")],
    [cpuDevice, Tensor.scalar(true, "bool"), Tensor.scalar(true, "bool")],
    [gpu, one, one], // another device places its own calls
  ];
  for (const [device, x, y] of cases) {
    assertEquals(add(device, x, y), undefined);
    assertEquals(less(device, x, y), undefined);
  }
  assertEquals(scalarArithmetic("div"), undefined);
});

Deno.test("a while of scalar ops totals as the kernels do, wrapping int64 and rounding float32", async () => {
  const { tensors } = await runForTensors(() => {
    const i = int64(0);
    const n = int64(1000);
    const total = int64(2n ** 63n - 500n * 999n + 1n);
    const f = fillConstant({ shape: [1], dtype: "float32", value: 0 });
    const tenth = fillConstant({ shape: [1], dtype: "float32", value: 0.1 });
    const cond = lessThan(i, n);
    whileLoop(cond, () => {
      elementwiseAdd(total, i, { out: total });
      elementwiseAdd(f, tenth, { out: f });
      increment(i);
      lessThan(i, n, { out: cond });
    });
    return [i, total, f];
  });
  assertEquals(tensors[0].item(0), 1000n);
  assertEquals(tensors[1].item(0), -(2n ** 63n) + 1n); // wrapped once
  let f = Math.fround(0);
  for (let k = 0; k < 1000; k++) f = Math.fround(f + Math.fround(0.1));
  assertEquals(tensors[2].item(0), f);
});

Deno.test("a while runs on an int32 Condition, true while nonzero", async () => {
  const { tensors } = await runForTensors(() => {
    const left = fillConstant({ shape: [1], dtype: "int32", value: 3 });
    const passes = int64(0);
    whileLoop(left, () => {
      increment(left, { step: -1 });
      increment(passes);
    });
    return [passes];
  });
  assertEquals(tensors[0].item(0), 3n);
});

Deno.test("a panic in a scalar op in a while pass names that op, its block and index", async () => {
  const program = new Program();
  program.guard(() => {
    const i = int64(0);
    const n = int64(3);
    const cond = lessThan(i, n);
    const unset = program.currentBlock.createVar({
      name: "unset",
      dtype: "int64",
      shape: [1],
    });
    whileLoop(cond, () => {
      increment(i);
      elementwiseMul(i, i, { out: i });
      lessThan(i, unset, { out: cond });
    });
  });
  const panic: Panic = await assertRejects(
    () => new Executor({ seed: 1 }).run(program),
    Panic,
  );
  assertEquals(panic.where, "block 1 op 2 less_than");
  assertEquals(panic.message, 'variable "unset" read before it was written');
});
