import { assertEquals } from "@std/assert";
import {
  arrayRead,
  arrayToTensor,
  arrayWrite,
  assign,
  fillConstant,
  splitToArray,
} from "../../../mod.ts";
import { buildProgram } from "../../_helpers/run_program.ts";

Deno.test("builder functions declare array and tensor outputs of array ops", () => {
  buildProgram(() => {
    const i = fillConstant({ shape: [1], dtype: "int64" });
    const a = arrayWrite(fillConstant({ shape: [2] }), i);
    assertEquals(a.kind, "array");
    assertEquals(arrayRead(a, i).kind, "tensor");
    assertEquals(arrayToTensor(a).kind, "tensor");
    assertEquals(splitToArray(fillConstant({ shape: [4] }), i).kind, "array");
    assertEquals(assign(a).kind, "array");
  });
});
