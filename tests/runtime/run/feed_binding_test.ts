// Feeds and parameters bound before a run: feed targets and fetch targets
// read from the feed and fetch ops, feeds checked against their variables'
// declarations, and feed ops that have no feed.

import { create } from "@bufbuild/protobuf";
import { assertEquals, assertInstanceOf, assertThrows } from "@std/assert";
import {
  AttrType,
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

function col(i: number) {
  return { name: "col", type: AttrType.INT, i };
}

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
  // A second feed op on the list, taking column 0; x's op takes column 1.
  desc.blocks[0].vars.push(create(VarDescSchema, tensor("z", [1])));
  desc.blocks[0].ops[0].attrs[0].i = 1;
  desc.blocks[0].ops.unshift(
    create(OpDescSchema, op("feed", { X: ["feed"] }, { Out: ["z"] }, [col(0)])),
  );
  const scope = scopeOf(desc);
  const z = Tensor.fromArray([3], "float32");
  bindRunInputs(desc, scope, { feeds: { x: X, z } });
  const list = scope.get("feed") as TensorArray;
  assertInstanceOf(list, TensorArray);
  assertEquals(list.snapshot(), [z, X]);
  assertEquals(scope.get("x"), undefined); // the feed op binds it
});

Deno.test("bindRunInputs() refuses a feed or fetch column beyond the ops on its list, before making the list", () => {
  for (const [index, type] of [[0, "feed"], [3, "fetch"]] as const) {
    const desc = fcProgram();
    assertEquals(desc.blocks[0].ops[index].type, type);
    desc.blocks[0].ops[index].attrs[0].i = 100_000_000;
    const scope = scopeOf(desc);
    const e = assertThrows(
      () => bindRunInputs(desc, scope, { feeds: { x: X } }),
      ProgramError,
      `attribute "col": 100000000 is not below the 1 ${type} op on "${type}"`,
    );
    assertEquals([e.where.block, e.where.op, e.where.opType], [0, index, type]);
    assertEquals(scope.get("feed"), undefined);
  }
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

Deno.test("bindRunInputs() refuses a feed whose kind or dtype differs, or rank or dims where need_check_feed is set", () => {
  const desc = create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      vars: [
        tensor("ids", [1], VarType_Type.INT64),
        { ...tensor("img", [-1, 2]), needCheckFeed: true },
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

Deno.test("bindRunInputs() takes a feed of any shape where need_check_feed is not set, as Paddle does", () => {
  // Paddle 2.3's mnist_linear declares its feed [16, 784] without
  // need_check_feed, and its own script feeds a batch of 1.
  const desc = create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      vars: [tensor("x", [16, 784]), tensor("ids", [1], VarType_Type.INT64)],
    }],
  });
  const scope = scopeOf(desc);
  const x = Tensor.zeros([1, 784], "float32");
  const ids = Tensor.fromArray([[1n, 2n]], "int64");
  bindRunInputs(desc, scope, { feeds: { x, ids } });
  assertEquals([scope.get("x"), scope.get("ids")], [x, ids]);
  const e = bindError({ x: Tensor.zeros([1, 784], "int32") }, desc);
  assertEquals(
    e.message,
    'feed: variable "x" is declared float32 [16, 784], the feed is int32 [1, 784]',
  );
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
