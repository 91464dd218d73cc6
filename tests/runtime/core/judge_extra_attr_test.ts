// Judging and writing one extra attribute: the verdict each kind of rule
// gives, the values messages show, and the types the builder writes.

import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { assertEquals, assertThrows } from "@std/assert";
import {
  AttrType,
  type OpDesc_Attr,
  OpDesc_AttrSchema,
} from "../../../gen/rill/v1/framework_pb.ts";
import {
  encodeExtraAttr,
  judgeExtraAttr,
} from "../../../runtime/core/judge_extra_attr.ts";

const a = (init: MessageInitShape<typeof OpDesc_AttrSchema>): OpDesc_Attr =>
  create(OpDesc_AttrSchema, init);

// The verdict's kind, with the value or the expected types where it has one.
function verdictOf(attr: OpDesc_Attr): string {
  const v = judgeExtraAttr(attr);
  switch (v.kind) {
    case "not_neutral":
      return `not_neutral ${v.value}`;
    case "wrong_type":
      return `wrong_type ${v.expected.map((t) => AttrType[t]).join(",")}`;
  }
  return v.kind;
}

Deno.test("judgeExtraAttr() gives each kind of rule's verdict", () => {
  const cases: [MessageInitShape<typeof OpDesc_AttrSchema>, string][] = [
    [{ name: "op_role", type: AttrType.INT, i: 256 }, "neutral"],
    [{ name: "is_test", type: AttrType.INT, i: 1 }, "neutral"],
    [{ name: "use_mkldnn", type: AttrType.BOOLEAN, b: true }, "neutral"],
    [{ name: "use_mkldnn", type: AttrType.INT, i: 1 }, "wrong_type BOOLEAN"],
    [{ name: "scale_out", type: AttrType.FLOAT, f: 0.25 }, "neutral"],
    [
      { name: "Scale_weights", type: AttrType.FLOATS, floats: [2, 3] },
      "neutral",
    ],
    [
      { name: "use_quantizer", type: AttrType.BOOLEAN, b: true },
      "not_neutral true",
    ],
    [
      { name: "mkldnn_data_type", type: AttrType.STRING, s: "bfloat16" },
      'not_neutral "bfloat16"',
    ],
    [{ name: "fuse_alpha", type: AttrType.FLOAT, f: 0.2 }, "neutral"],
    [
      { name: "fuse_relu", type: AttrType.BOOLEAN, b: true },
      "not_neutral true",
    ],
    [{ name: "fused_transpose_X", type: AttrType.INTS, ints: [] }, "neutral"],
    [
      { name: "fused_transpose_X", type: AttrType.INTS, ints: [0, 2, 1, 3] },
      "not_neutral [0, 2, 1, 3]",
    ],
    [
      { name: "data_format", type: AttrType.STRING, s: "NCHW" },
      'not_neutral "NCHW"',
    ],
    [
      { name: "is_distributed", type: AttrType.BOOLEAN, b: true },
      "not_neutral true",
    ],
    [
      { name: "epmap", type: AttrType.STRINGS, strings: ["127.0.0.1:6170"] },
      "neutral",
    ],
    [{ name: "colour", type: AttrType.STRING, s: "red" }, "not_extra"],
  ];
  for (const [init, want] of cases) {
    assertEquals(verdictOf(a(init)), want, init.name);
  }
});

Deno.test("judgeExtraAttr() shows a long list's first items and how many more", () => {
  const verdict = verdictOf(
    a({
      name: "fused_reshape_Out",
      type: AttrType.INTS,
      ints: [...Array(10).keys()],
    }),
  );
  assertEquals(verdict, "not_neutral [0, 1, 2, 3, 4, 5, 6, 7, … 2 more]");
});

Deno.test("encodeExtraAttr() writes the first type the rule takes that holds the value", () => {
  const typeOf = (name: string, value: Parameters<typeof encodeExtraAttr>[1]) =>
    AttrType[encodeExtraAttr(name, value)!.type];
  assertEquals(
    [
      typeOf("scale_x", 1),
      typeOf("scale_y", [1]),
      typeOf("workspace_size_MB", 512),
      typeOf("fuse_alpha", 0.5),
      typeOf("fused_reshape_Y", []),
      typeOf("is_test", true),
      typeOf("op_callstack", ["a.py:1"]),
    ],
    ["FLOAT", "FLOATS", "INT", "FLOAT", "INTS", "BOOLEAN", "STRINGS"],
  );
  assertThrows(
    () => encodeExtraAttr("use_cudnn", "yes"),
    TypeError,
    'attribute "use_cudnn": "yes" fits none of its types',
  );
});
