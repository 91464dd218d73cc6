import { assertEquals } from "@std/assert";
import { outerVariables } from "../../../runtime/build/outer_variables.ts";
import {
  elementwiseAdd,
  fillConstant,
  increment,
  Program,
} from "../../../mod.ts";

Deno.test("outerVariables() names the enclosing blocks' variables a sub-block reads and writes", () => {
  const p = new Program();
  const [i, total, block] = p.guard(() => {
    const i = fillConstant({ shape: [1], dtype: "int64" });
    const total = fillConstant({ shape: [1], dtype: "int64" });
    const block = p.subBlock(() => {
      const local = fillConstant({ shape: [1], dtype: "int64", value: 2 });
      elementwiseAdd(total, local, { out: total });
      increment(i);
    });
    return [i, total, block];
  });
  const outer = outerVariables(block);
  assertEquals(outer.reads.map((v) => v.name), [total.name, i.name]);
  assertEquals(outer.writes.map((v) => v.name), [total.name, i.name]);
  // They are the enclosing block's own variables, not copies.
  assertEquals(outer.reads[0], total);
});
