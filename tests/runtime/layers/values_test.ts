import { assertEquals } from "@std/assert";
import { assignValue, fillConstant, increment } from "../../../mod.ts";
import { buildProgram } from "../../_helpers/run_program.ts";

Deno.test("increment() rebinds its input unless `out` is given", () => {
  buildProgram(() => {
    const i = fillConstant({ shape: [1], dtype: "int64" });
    assertEquals(increment(i).name, i.name);
    const j = fillConstant({ shape: [1], dtype: "int64" });
    assertEquals(increment(i, { out: j }).name, j.name);
  });
});

Deno.test("fillConstant() adds str_value only when float32 cannot hold the value", () => {
  const [program] = buildProgram(() => {
    fillConstant({ shape: [1], value: 2 });
    fillConstant({ shape: [1], dtype: "float64", value: 0.1 });
    fillConstant({ shape: [1], dtype: "int64", value: 123456789 });
    fillConstant({ shape: [1], dtype: "int64", value: 2n ** 60n });
  });
  const strValues = program.desc.blocks[0].ops.map((op) =>
    op.attrs.find((a) => a.name === "str_value")?.s
  );
  assertEquals(strValues, [
    undefined,
    "0.1",
    "123456789",
    "1152921504606846976",
  ]);
});

Deno.test("assignValue() stores values in the field its dtype names", () => {
  const [program] = buildProgram(() => {
    assignValue([1.5]);
    assignValue([1], { dtype: "int32" });
    assignValue([1n], { dtype: "int64" });
    assignValue([true], { dtype: "bool" });
    assignValue([0.5], { dtype: "float64" });
  });
  const fields = program.desc.blocks[0].ops.map((op) =>
    op.attrs.map((a) => a.name).find((n) => n.endsWith("_values"))
  );
  assertEquals(fields, [
    "fp32_values",
    "int32_values",
    "int64_values",
    "bool_values",
    "fp32_values",
  ]);
});
