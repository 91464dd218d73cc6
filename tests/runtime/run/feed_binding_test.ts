// Feeds and parameters bound before a run: feed targets and fetch targets
// read from the feed and fetch ops, feeds checked against their variables'
// declarations, and feed ops that have no feed.

import { create } from "@bufbuild/protobuf";
import { assertEquals, assertInstanceOf, assertThrows } from "@std/assert";
import {
  BlockLayout,
  ProgramError,
  Scope,
  Tensor,
  TensorArray,
  VarType_Type,
} from "../../../mod.ts";
import {
  OpDescSchema,
  ProgramDescSchema,
  VarDescSchema,
} from "../../../gen/rill/v1/framework_pb.ts";
import {
  bindRunInputs,
  feedTargets,
  fetchTargets,
} from "../../../runtime/run/feed_binding.ts";
import { channel, op, tensor } from "../../_helpers/desc_init.ts";
import { fcProgram, W } from "../../_helpers/fluid_inference_model.ts";

const X = Tensor.fromArray([[1, 2]], "float32");

function scopeOf(desc = fcProgram()): Scope {
  return new Scope(new BlockLayout(desc.blocks[0]));
}

function bindError(
  feeds: Record<string, Tensor>,
  desc = fcProgram(),
): ProgramError {
  const e = assertThrows(
    () => bindRunInputs(desc, scopeOf(desc), { feeds, file: "m/__model__" }),
    ProgramError,
  );
  return e as ProgramError;
}

Deno.test("feedTargets() and fetchTargets() name the variables the feed and fetch ops bind and read", () => {
  assertEquals(feedTargets(fcProgram()), [
    { name: "x", list: "feed", col: 0, op: 0 },
  ]);
  assertEquals(fetchTargets(fcProgram()), ["y"]);
});

Deno.test("bindRunInputs() puts a feed of a feed op's variable in the feed list at its column", () => {
  const desc = fcProgram();
  desc.blocks[0].ops[0].attrs[0].i = 2;
  const scope = scopeOf(desc);
  bindRunInputs(desc, scope, { feeds: { x: X } });
  const list = scope.get("feed") as TensorArray;
  assertInstanceOf(list, TensorArray);
  assertEquals(list.snapshot(), [undefined, undefined, X]);
  assertEquals(scope.get("x"), undefined); // the feed op binds it
});

Deno.test("bindRunInputs() binds parameters by name", () => {
  const scope = scopeOf();
  bindRunInputs(fcProgram(), scope, {
    feeds: { x: X },
    parameters: new Map([["w", W]]),
  });
  assertEquals(scope.get("w"), W);
});

Deno.test("bindRunInputs() refuses a feed op with no feed, naming the op and variable", () => {
  const e = bindError({});
  assertEquals(
    e.message,
    'm/__model__: block 0 op 0 (feed): no feed given for "x"',
  );
  assertEquals(e.where.variable, "x");
});

Deno.test("bindRunInputs() refuses a feed whose dtype, rank or dims differ from the declaration", () => {
  const desc = create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      vars: [
        tensor("ids", [1], VarType_Type.INT64),
        tensor("img", [-1, 2]),
        channel("ch"),
      ],
    }],
  });
  const cases: [Record<string, Tensor>, string][] = [
    [
      { ids: Tensor.fromArray([1, 2], "float32") },
      'feed: variable "ids" is declared int64 [1], the feed is float32 [2]',
    ],
    [
      { img: Tensor.fromArray([1, 2], "float32") },
      'feed: variable "img" is declared float32 [-1, 2], the feed is float32 [2]',
    ],
    [
      { img: Tensor.fromArray([[1, 2, 3]], "float32") },
      'feed: variable "img" is declared float32 [-1, 2], the feed is float32 [1, 3]',
    ],
    [
      { ch: Tensor.fromArray([1, 2], "float32") },
      'feed: variable "ch" is declared a channel, the feed is float32 [2]',
    ],
  ];
  for (const [feeds, message] of cases) {
    const e = bindError(feeds, desc);
    assertEquals(e.message, message);
    assertEquals(e.where.variable, Object.keys(feeds)[0]);
  }
});

Deno.test("bindRunInputs() binds nothing when a feed is refused", () => {
  const desc = fcProgram();
  desc.blocks[0].vars.push(create(VarDescSchema, tensor("extra", [1])));
  const scope = scopeOf(desc);
  assertThrows(
    () =>
      bindRunInputs(desc, scope, {
        feeds: { extra: Tensor.fromArray([1], "float32") },
        parameters: new Map([["w", W]]),
      }),
    ProgramError,
  );
  assertEquals(scope.values.filter((v) => v !== undefined), []);
});

Deno.test("bindRunInputs() binds a variable no feed op writes directly", () => {
  const desc = fcProgram();
  desc.blocks[0].ops = [
    create(OpDescSchema, op("fetch", { X: ["x"] }, { Out: ["fetch"] })),
  ];
  const scope = scopeOf(desc);
  bindRunInputs(desc, scope, { feeds: { x: X } });
  assertEquals(scope.get("x"), X);
});
