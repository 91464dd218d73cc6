import { assertEquals } from "@std/assert";
import { fillConstant, split } from "../../../mod.ts";
import { buildProgram } from "../../_helpers/run_program.ts";

Deno.test("split() returns one variable per part", () => {
  buildProgram(() => {
    const x = fillConstant({ shape: [6] });
    assertEquals(split(x, { num: 3 }).length, 3);
    assertEquals(split(x, { sections: [1, 5] }).length, 2);
  });
});
