// The position builders: each built program validates, runs, and gives
// the positions computed by hand; outputs are declared as infer says.

import { assertEquals } from "@std/assert";
import {
  argMax,
  assignValue,
  oneHotV2,
  topKV2,
  validateProgram,
  type Variable,
} from "../../../mod.ts";
import { buildProgram, runForTensors } from "../../_helpers/run_program.ts";

const grid = () => assignValue([4, 1, 8, 2, 9, 3], { shape: [2, 3] });

// What one fetched output should be: dtype, shape, value, and the shape
// declared when it differs (a count read from a tensor at run time is -1).
type Expected = [string, number[], unknown, number[]?];

async function checkBuilt(
  build: () => Variable[],
  expected: Expected[],
): Promise<void> {
  const [program, ys] = buildProgram(build);
  validateProgram(program.desc);
  assertEquals(
    ys.map((y) => [y.dtype, y.shape]),
    expected.map(([dtype, shape, , declared]) => [dtype, declared ?? shape]),
  );
  const { tensors } = await runForTensors(build);
  assertEquals(
    tensors.map((t) => [t.dtype, t.shape, t.toNested()]),
    expected.map(([dtype, shape, value]) => [dtype, shape, value]),
  );
}

Deno.test("argMax() gives int64 positions along axis", async () => {
  await checkBuilt(() => [argMax(grid(), 0)], [["int64", [3], [0n, 1n, 0n]]]);
});

Deno.test("argMax() keeps dims, flattens and gives int32 when asked", async () => {
  await checkBuilt(() => [
    argMax(grid(), -1, { keepdims: true, dtype: "int32" }),
    argMax(grid(), 0, { flatten: true }),
  ], [["int32", [2, 1], [[2], [1]]], ["int64", [1], [4n]]]);
});

Deno.test("topKV2() gives the k largest along the last axis, sorted", async () => {
  await checkBuilt(() => topKV2(grid(), 2), [
    ["float32", [2, 2], [[8, 4], [9, 3]]],
    ["int64", [2, 2], [[2n, 0n], [1n, 2n]]],
  ]);
});

Deno.test("topKV2() gives the smallest along axis 0 and takes k from a tensor", async () => {
  await checkBuilt(() => [
    ...topKV2(grid(), 1, { axis: 0, largest: false }),
    topKV2(grid(), assignValue([1], { dtype: "int32" }))[0],
  ], [
    ["float32", [1, 3], [[2, 1, 3]]],
    ["int64", [1, 3], [[1n, 0n, 1n]]],
    ["float32", [2, 1], [[8], [9]], [2, -1]],
  ]);
});

Deno.test("oneHotV2() appends a one-hot dim of depth", async () => {
  const positions = () => assignValue([0, 2, 1], { dtype: "int64" });
  await checkBuilt(() => [
    oneHotV2(positions(), 3),
    oneHotV2(positions(), 2, { dtype: "int32", allowOutOfRange: true }),
  ], [
    ["float32", [3, 3], [[1, 0, 0], [0, 0, 1], [0, 1, 0]]],
    ["int32", [3, 2], [[1, 0], [0, 0], [0, 1]]],
  ]);
});
