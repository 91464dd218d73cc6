import { assertEquals } from "@std/assert";
import { AttrType } from "../../../gen/rill/v1/framework_pb.ts";
import { fillConstant, print } from "../../../mod.ts";
import { buildProgram } from "../../_helpers/run_program.ts";

Deno.test("print() appends a print op with its message", () => {
  const [program] = buildProgram(() =>
    print(fillConstant({ shape: [1] }), { message: "m" })
  );
  const op = program.desc.blocks[0].ops[1];
  assertEquals(op.type, "print");
  assertEquals(op.inputs[0].arguments, ["fill_constant.out_0"]);
  assertEquals(
    op.attrs.map((a) => [a.name, a.type, a.s]),
    [["message", AttrType.STRING, "m"]],
  );
});
