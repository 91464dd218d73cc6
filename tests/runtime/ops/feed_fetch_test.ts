// The feed and fetch ops, with the attribute set Paddle saves on them (col
// and the bookkeeping attributes every op carries), as programs.

import { create } from "@bufbuild/protobuf";
import { assertEquals, assertInstanceOf, assertRejects } from "@std/assert";
import {
  AttrType,
  Executor,
  type OpDesc_Attr,
  ProgramError,
  Tensor,
  TensorArray,
  VarType_Type,
} from "../../../mod.ts";
import {
  OpDesc_AttrSchema,
  ProgramDescSchema,
} from "../../../gen/rill/v1/framework_pb.ts";
import { FEED_FETCH_OPS } from "../../../runtime/ops/feed_fetch.ts";
import { Panic } from "../../../scheduler/panic.ts";
import { op, tensor } from "../../_helpers/desc_init.ts";

const A = Tensor.fromArray([[1, 2]], "float32");
const B = Tensor.fromArray([7n], "int64");

// What Paddle 2.x saves on a feed or fetch op besides `col`.
function paddleAttrs(col: number): OpDesc_Attr[] {
  return [
    { name: "col", type: AttrType.INT, i: col },
    { name: "op_role", type: AttrType.INT, i: 0 },
    { name: "op_role_var", type: AttrType.STRINGS, strings: [] },
    { name: "op_namescope", type: AttrType.STRING, s: "/" },
    { name: "op_callstack", type: AttrType.STRINGS, strings: ["  File x"] },
    { name: "op_device", type: AttrType.STRING, s: "" },
    { name: "with_quant_attr", type: AttrType.BOOLEAN, b: false },
  ].map((a) => create(OpDesc_AttrSchema, a));
}

/** Feeds `a` (col 1) and `b` (col 0), fetches `b` (col 0) and `a` (col 1). */
function twoWayProgram(fetchOf = "a") {
  return create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      vars: [
        { name: "feed", type: { type: VarType_Type.FEED_MINIBATCH } },
        { name: "fetch", type: { type: VarType_Type.FETCH_LIST } },
        tensor("a", [-1, 2]),
        tensor("b", [1], VarType_Type.INT64),
        tensor("never", [1]),
      ],
      ops: [
        op("feed", { X: ["feed"] }, { Out: ["a"] }, paddleAttrs(1)),
        op("feed", { X: ["feed"] }, { Out: ["b"] }, paddleAttrs(0)),
        op("fetch", { X: ["b"] }, { Out: ["fetch"] }, paddleAttrs(0)),
        op("fetch", { X: [fetchOf] }, { Out: ["fetch"] }, paddleAttrs(1)),
      ],
    }],
  });
}

Deno.test("FEED_FETCH_OPS are feed and fetch, each tested below", () => {
  assertEquals(FEED_FETCH_OPS.map((d) => d.type), ["feed", "fetch"]);
});

Deno.test("feed binds the tensor fed at its column; fetch stores its X at its column", async () => {
  const { scope, fetched } = await new Executor().run(twoWayProgram(), {
    feeds: { a: A, b: B },
    fetch: ["a", "b"],
  });
  assertEquals(fetched, { a: A, b: B });
  const list = scope.get("fetch") as TensorArray;
  assertInstanceOf(list, TensorArray);
  assertEquals(list.snapshot(), [B, A]);
});

Deno.test("fetch panics on a variable never written", async () => {
  const e = await assertRejects(
    () => new Executor().run(twoWayProgram("never"), { feeds: { a: A, b: B } }),
    Panic,
  );
  assertEquals(e.message, 'variable "never" read before it was written');
  assertEquals(e.where, "block 0 op 3 fetch");
});

Deno.test("feed and fetch refuse a negative col before running", async () => {
  const desc = twoWayProgram();
  desc.blocks[0].ops[3].attrs[0].i = -1;
  const e = await assertRejects(
    () => new Executor().run(desc, { feeds: { a: A, b: B } }),
    ProgramError,
  );
  assertEquals(e.where.attr, "col");
});
