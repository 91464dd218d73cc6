// PIR control flow converted and run: if as two conditional_blocks, while
// as the while op over its block arguments.

import { assertEquals } from "@std/assert";
import { type ProgramDesc, Tensor } from "../../../mod.ts";
import {
  a,
  data,
  dense,
  fetch,
  full,
  op,
  region,
} from "../../_helpers/pir_json.ts";
import {
  convertPir as convert,
  opTypes,
  runPir as run,
} from "../../_helpers/pir_run.ts";

// --- control flow ---

function ifProgram(): ProgramDesc {
  const i = dense("i64", []);
  const b = dense("bool", []);
  return convert([
    data("n", 1, i, [], "int64"),
    full(2, i, [], 0, "int64"),
    op("1.greater_than", [1, 2], [[3, b]]),
    op("1.if", [3], [[6, i]], [], [
      region(1, [op("1.relu", [1], [[4, i]]), op("2.yield", [4], [])]),
      region(2, [
        full(5, dense("f32", [1]), [1], -2),
        op("1.scale", [1, 5], [[7, i]], [
          a.f32("bias", 0),
          a.bool("bias_after_scale", true),
        ]),
        op("2.yield", [7], []),
      ]),
    ]),
    fetch(6, 8, i),
  ]);
}

Deno.test("pirToProgram() turns if into two conditional_blocks on cond and its negation", async () => {
  const desc = ifProgram();
  assertEquals(opTypes(desc), [
    "feed",
    "fill_constant",
    "greater_than",
    "logical_not",
    "conditional_block",
    "conditional_block",
    "fetch",
  ]);
  assertEquals(opTypes(desc, 1), ["relu", "assign"]);
  assertEquals(opTypes(desc, 2), ["scale", "assign"]);
  const n = (v: bigint) => ({ n: Tensor.fromArray([v], "int64", []) });
  assertEquals((await run(desc, n(3n))).item(0), 3n);
  assertEquals((await run(desc, n(-3n))).item(0), 6n);
});

Deno.test("pirToProgram() turns while into the while op, its block arguments into loop variables", async () => {
  const i = dense("i64", []);
  const b = dense("bool", []);
  const desc = convert([
    data("n", 1, i, [], "int64"),
    full(2, i, [], 1, "int64"),
    op("1.less_than", [2, 1], [[3, b]]),
    op("1.while", [3, 2], [[9, i]], [], [
      region(1, [
        full(4, i, [], 2, "int64"),
        op("1.multiply", [-1, 4], [[5, i]]),
        op("1.less_than", [5, 1], [[6, b]]),
        op("2.yield", [6, 5], []),
      ], [[-1, i]]),
    ]),
    fetch(9, 10, i),
  ]);
  assertEquals(opTypes(desc).includes("while"), true);
  // The first power of two not below n.
  const n = (v: bigint) => ({ n: Tensor.fromArray([v], "int64", []) });
  assertEquals((await run(desc, n(100n))).item(0), 128n);
  assertEquals((await run(desc, n(1n))).item(0), 1n);
});
