// The product and reduction builders: a built program validates, runs, and
// gives the value computed by hand.

import { assertEquals } from "@std/assert";
import { assignValue, matmulV2, validateProgram } from "../../../mod.ts";
import { buildProgram, runForTensors } from "../../_helpers/run_program.ts";

Deno.test("matmulV2() broadcasts batch dims and transposes", async () => {
  const build = () => {
    const x = assignValue([1, 2, 3, 4, 5, 6, 7, 8], { shape: [2, 2, 2] });
    const y = assignValue([1, 0, 1, 1], { shape: [2, 2] });
    return [matmulV2(x, y), matmulV2(x, y, { transX: true, transY: true })];
  };
  const [program, ys] = buildProgram(build);
  validateProgram(program.desc);
  assertEquals(ys.map((y) => y.shape), [[2, 2, 2], [2, 2, 2]]);
  const { tensors } = await runForTensors(build);
  // x[0] = [[1, 2], [3, 4]], y = [[1, 0], [1, 1]]; x[0] × y = [[3, 2], [7, 4]].
  // x[0]ᵀ × yᵀ = [[1, 3], [2, 4]] × [[1, 1], [0, 1]] = [[1, 4], [2, 6]].
  assertEquals(tensors.map((t) => t.toNested()), [
    [[[3, 2], [7, 4]], [[11, 6], [15, 8]]],
    [[[1, 4], [2, 6]], [[5, 12], [6, 14]]],
  ]);
});

Deno.test("matmulV2() multiplies two vectors into [1]", async () => {
  const build = () => matmulV2(assignValue([1, 2, 3]), assignValue([4, 5, 6]));
  const [program, y] = buildProgram(build);
  validateProgram(program.desc);
  assertEquals([y.dtype, y.shape], ["float32", [1]]);
  const { tensors: [t] } = await runForTensors(build);
  assertEquals(t.toNested(), [32]);
});
