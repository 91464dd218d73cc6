import { create } from "@bufbuild/protobuf";
import { assertEquals } from "@std/assert";
import {
  AttrType,
  ProgramDescSchema,
} from "../../../gen/rill/v1/framework_pb.ts";
import { freeVariables } from "../../../runtime/check/free_variables.ts";
import { channel, op, tensor } from "../../_helpers/desc_init.ts";

function twoBlocks(ops: ReturnType<typeof op>[]) {
  return create(ProgramDescSchema, {
    blocks: [
      {
        idx: 0,
        parentIdx: -1,
        vars: [
          channel("ch"),
          tensor("x"),
          tensor("v"),
          tensor("ok"),
          { name: "ys", type: { type: 13 } },
          tensor("i"),
        ],
      },
      { idx: 1, parentIdx: 0, ops },
      { idx: 2, parentIdx: 1 },
    ],
  });
}

Deno.test("freeVariables() counts a select receive case as a write of its value and ok", () => {
  const program = twoBlocks([
    op("select", {}, {}, [
      {
        name: "cases",
        type: AttrType.STRINGS,
        strings: ["recv,ch,v,ok", "send,ch,x,"],
      },
      { name: "sub_blocks", type: AttrType.BLOCKS, blocksIdx: [2, 2] },
    ]),
  ]);
  assertEquals(freeVariables(program, 1), {
    reads: ["ch", "x"],
    writes: ["v", "ok"],
  });
});

Deno.test("freeVariables() counts write_to_array as a read of the array", () => {
  const program = twoBlocks([
    op("write_to_array", { X: ["x"], I: ["i"] }, { Out: ["ys"] }),
  ]);
  assertEquals(freeVariables(program, 1), {
    reads: ["x", "i", "ys"],
    writes: [],
  });
});

Deno.test("freeVariables() counts a rebinding output as a write", () => {
  const program = twoBlocks([op("assign", { X: ["x"] }, { Out: ["v"] })]);
  assertEquals(freeVariables(program, 1), { reads: ["x"], writes: ["v"] });
});
