import { create } from "@bufbuild/protobuf";
import { assertEquals, assertThrows } from "@std/assert";
import {
  AttrType,
  type OpDesc_Attr,
  OpDesc_AttrSchema,
} from "../../gen/rill/v1/framework_pb.ts";
import { AttrError, readAttrs } from "../../runtime/attr_read.ts";
import { attr } from "../../runtime/op_def.ts";

const a = (init: Partial<Omit<OpDesc_Attr, "$typeName">>): OpDesc_Attr =>
  create(OpDesc_AttrSchema, init);

Deno.test("readAttrs() reads INT as LONG, INTS as LONGS and the reverse", () => {
  const schema = {
    l: attr.long(),
    ls: attr.longs(),
    i: attr.int(),
    is: attr.ints(),
  };
  assertEquals(
    readAttrs(schema, [
      a({ name: "l", type: AttrType.INT, i: -5 }),
      a({ name: "ls", type: AttrType.INTS, ints: [1, 2] }),
      a({ name: "i", type: AttrType.LONG, l: 7n }),
      a({ name: "is", type: AttrType.LONGS, longs: [3n, -4n] }),
    ]),
    { l: -5n, ls: [1n, 2n], i: 7, is: [3, -4] },
  );
});

Deno.test("readAttrs() rejects LONGS that do not fit INTS", () => {
  const e = assertThrows(
    () =>
      readAttrs({ is: attr.ints() }, [
        a({ name: "is", type: AttrType.LONGS, longs: [1n, 2n ** 31n] }),
      ]),
    AttrError,
  );
  assertEquals(e.attr, "is");
  assertEquals(
    e.message,
    'attribute "is": value 2147483648 does not fit an INT',
  );
});

Deno.test("readAttrs() applies defaults and leaves absent optional attributes undefined", () => {
  assertEquals(
    readAttrs(
      { axis: attr.int(-1), dtype: attr.int(), ok: attr.bool(true) },
      [],
    ),
    { axis: -1, dtype: undefined, ok: true },
  );
});

Deno.test("readAttrs() reads each attribute from the field its type names", () => {
  const values = readAttrs({
    f: attr.float(),
    s: attr.string(),
    fs: attr.floats(),
    ss: attr.strings(),
    b: attr.bool(),
    bs: attr.bools(),
    blk: attr.block(),
    blks: attr.blocks(),
  }, [
    // The i field holds a decoy: only the field of `type` is read.
    a({ name: "f", type: AttrType.FLOAT, f: 0.5, i: 9 }),
    a({ name: "s", type: AttrType.STRING, s: "x" }),
    a({ name: "fs", type: AttrType.FLOATS, floats: [1, 2] }),
    a({ name: "ss", type: AttrType.STRINGS, strings: ["a"] }),
    a({ name: "b", type: AttrType.BOOLEAN, b: true }),
    a({ name: "bs", type: AttrType.BOOLEANS, bools: [false] }),
    a({ name: "blk", type: AttrType.BLOCK, blockIdx: 2 }),
    a({ name: "blks", type: AttrType.BLOCKS, blocksIdx: [1, 3] }),
  ]);
  assertEquals(values, {
    f: 0.5,
    s: "x",
    fs: [1, 2],
    ss: ["a"],
    b: true,
    bs: [false],
    blk: 2,
    blks: [1, 3],
  });
});

Deno.test("readAttrs() rejects an attribute whose type is not the schema's", () => {
  const e = assertThrows(
    () =>
      readAttrs({ f: attr.float() }, [
        a({ name: "f", type: AttrType.INT, i: 1 }),
      ]),
    AttrError,
  );
  assertEquals(e.message, 'attribute "f": expected FLOAT, got INT');
  const unknownType = assertThrows(
    () =>
      readAttrs({ f: attr.float() }, [a({ name: "f", type: 42 as AttrType })]),
    AttrError,
  );
  assertEquals(unknownType.message, 'attribute "f": expected FLOAT, got 42');
});
