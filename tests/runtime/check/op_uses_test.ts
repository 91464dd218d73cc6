import { create } from "@bufbuild/protobuf";
import { assertEquals } from "@std/assert";
import { OpDescSchema } from "../../../gen/rill/v1/framework_pb.ts";
import { opUses } from "../../../runtime/check/op_uses.ts";
import { op } from "../../_helpers/desc_init.ts";

function kinds(init: ReturnType<typeof op>): string[] {
  return opUses(create(OpDescSchema, init)).map((u) =>
    `${u.slot} ${u.kind} ${u.name}`
  );
}

Deno.test("opUses() gives the channel ops' Channel its direction and a receive's results as secondary", () => {
  assertEquals(kinds(op("channel_send", { Channel: ["c"], X: ["x"] })), [
    "Channel send c",
    "X read x",
  ]);
  assertEquals(
    kinds(
      op("channel_recv", { Channel: ["c"] }, { Out: ["v"], Status: ["ok"] }),
    ),
    ["Channel recv c", "Out secondary v", "Status secondary ok"],
  );
  assertEquals(kinds(op("channel_close", { Channel: ["c"] })), [
    "Channel close c",
  ]);
});

Deno.test("opUses() takes a control-flow op's lists of its block's variables as listings", () => {
  assertEquals(
    kinds(
      op("while", { X: ["i", "n"], Condition: ["c"] }, {
        Out: ["i"],
        StepScopes: ["s"],
      }),
    ),
    [
      "X listed i",
      "X listed n",
      "Condition read c",
      "Out listed i",
      "StepScopes secondary s",
    ],
  );
  assertEquals(kinds(op("go", { X: ["a"], Args: ["b"] })), [
    "X listed a",
    "Args read b",
  ]);
});

Deno.test("opUses() counts an in-place store as a read, and outputs after the first as secondary", () => {
  assertEquals(
    kinds(op("write_to_array", { X: ["x"], I: ["i"] }, { Out: ["ys"] })),
    ["X read x", "I read i", "Out read ys"],
  );
  assertEquals(
    kinds(op("some_paddle_op", { X: ["x"] }, { Out: ["y"], XShape: ["xs"] })),
    ["X read x", "Out write y", "XShape secondary xs"],
  );
});
