// placeProgram(): which go and parallel_for blocks may run on another
// worker (docs/architecture.md §6), one test per part of the rule, built with the
// builder API; and which channels and tensor arrays must be shared.

import { assert, assertEquals } from "@std/assert";
import {
  arrayWrite,
  assign,
  cast,
  createArray,
  defaultProgram,
  elementwiseAdd,
  fillConstant,
  forRange,
  go,
  increment,
  lessThan,
  makeChannel,
  parallelFor,
  print,
  type Program,
  recv,
  scale,
  select,
  send,
  validateProgram,
  type Variable,
  whileLoop,
} from "../../../mod.ts";
import {
  type BlockPlacement,
  placeProgram,
  type ProgramPlacement,
} from "../../../runtime/check/placement.ts";
import { int64 } from "../../_helpers/int64.ts";
import { buildProgram } from "../../_helpers/run_program.ts";

interface Placed<T> {
  program: Program;
  placement: ProgramPlacement;
  /** What the builder returned. */
  got: T;
}

// Builds a program, checks that it validates (the rule is stated for
// valid programs) and places it.
function place<T>(build: () => T): Placed<T> {
  const [program, got] = buildProgram(build);
  validateProgram(program.desc);
  return { program, placement: placeProgram(program.desc), got };
}

function blockOf(placement: ProgramPlacement, block: number): BlockPlacement {
  const p = placement.blocks.get(block);
  if (p === undefined) throw new Error(`block ${block} is not placed`);
  return p;
}

// A tensor variable of block 0 with a readable name.
function named(name: string): Variable {
  const block = defaultProgram().globalBlock;
  return block.createVar({ name, dtype: "float32", shape: [1] });
}

// `named(name)`, filled with `value` where the builder is.
function filled(name: string, value: number): Variable {
  return fillConstant({ shape: [1], value, out: named(name) });
}

function opIndex(program: Program, block: number, type: string): number {
  return program.desc.blocks[block].ops.findIndex((op) => op.type === type);
}

// ---- Movable goroutines -----------------------------------------------------

Deno.test("placeProgram() moves a go that only sends on a channel and shares the channel", () => {
  const { program, placement } = place(() => {
    const ch = makeChannel({ name: "ch", capacity: 1 });
    go(() => send(ch, fillConstant({ shape: [1], value: 1 })));
    print(recv(ch));
  });
  const p = blockOf(placement, 1);
  assertEquals(p.op, { block: 0, index: 1, type: "go" });
  assertEquals([p.movable, p.pinnedBy, p.copied, p.shared], [
    true,
    undefined,
    [],
    ["ch"],
  ]);
  assert(placement.isShared(0, "ch"));
  assert(placement.sharesOutput(0, opIndex(program, 0, "channel_create")));
  assert(!placement.sharesOutput(0, opIndex(program, 0, "go")));
});

Deno.test("placeProgram() moves a go reading a tensor written only before the spawn, copying it", () => {
  const { placement } = place(() => {
    const ch = makeChannel({ name: "ch", capacity: 1 });
    const x = filled("x", 1);
    increment(x);
    go(() => send(ch, x));
    print(recv(ch));
  });
  const p = blockOf(placement, 1);
  assertEquals([p.movable, p.copied, p.shared], [true, ["x"], ["ch"]]);
  assert(!placement.isShared(0, "x"));
});

Deno.test("placeProgram() moves a go whose Args are rewritten after the spawn", () => {
  const { placement } = place(() => {
    const ch = makeChannel({ name: "ch", capacity: 1 });
    const x = filled("x", 1);
    go(() => send(ch, scale(x, { scale: 2 })), { args: [x] });
    increment(x);
    print(recv(ch));
  });
  const p = blockOf(placement, 1);
  assertEquals([p.movable, p.copied, p.shared], [true, ["x"], ["ch"]]);
});

Deno.test("placeProgram() shares a channel passed in Args, back through the assign that bound it", () => {
  const { placement } = place(() => {
    const ch = makeChannel({ name: "ch" });
    const other = makeChannel({ name: "other", capacity: 1 });
    const link = assign(ch, {
      out: ch.block.createVar({ name: "link", kind: "channel" }),
    });
    go(() => send(link, int64(1)), { args: [link] });
    send(other, recv(ch));
  });
  assertEquals(blockOf(placement, 1).shared, ["link"]);
  assert(placement.isShared(1, "link")); // the go block's own copy
  assert(placement.isShared(0, "link"));
  assert(placement.isShared(0, "ch"));
  assert(!placement.isShared(0, "other")); // never leaves block 0's thread
  assertEquals([0, 1, 2].map((i) => placement.sharesOutput(0, i)), [
    true, // channel_create ch
    false, // channel_create other
    true, // assign ch -> link
  ]);
});

Deno.test("placeProgram() shares a channel through a chain of assigns", () => {
  const { placement } = place(() => {
    const b = defaultProgram().globalBlock;
    const ch = makeChannel({ name: "ch", capacity: 1 });
    const c2 = assign(ch, {
      out: b.createVar({ name: "c2", kind: "channel" }),
    });
    const c3 = assign(c2, {
      out: b.createVar({ name: "c3", kind: "channel" }),
    });
    const unrelated = makeChannel({ name: "unrelated" });
    go(() => send(c3, int64(7)));
    go(() => send(unrelated, int64(1)));
    // A copy taken from a shared variable needs no sharing of its own.
    assign(c3, { out: b.createVar({ name: "copy", kind: "channel" }) });
    print(recv(ch));
  });
  for (const name of ["ch", "c2", "c3", "unrelated"]) {
    assert(placement.isShared(0, name), name);
  }
  assert(!placement.isShared(0, "copy"));
  assertEquals(blockOf(placement, 1).shared, ["c3"]);
});

Deno.test("placeProgram() moves a go storing into an outer tensor array and shares the array", () => {
  const { program, placement, got: arr } = place(() => {
    const arr = createArray({ dtype: "float32" });
    const done = makeChannel({ name: "done" });
    go(() => {
      const i = int64(0);
      arrayWrite(fillConstant({ shape: [1], value: 3 }), i, arr);
      send(done, i);
    });
    recv(done);
    return arr;
  });
  const p = blockOf(placement, 1);
  assertEquals([p.movable, p.copied], [true, []]);
  assertEquals(new Set(p.shared), new Set([arr.name, "done"]));
  assert(placement.isShared(0, arr.name));
  assert(placement.sharesOutput(0, opIndex(program, 0, "create_array")));
});

Deno.test("placeProgram() shares a block's declared tensor array a movable go stores into", () => {
  const { placement } = place(() => {
    const arr = defaultProgram().globalBlock.createVar({
      name: "arr",
      kind: "array",
      dtype: "float32",
    });
    const kept = arr.block.createVar({
      name: "kept",
      kind: "array",
      dtype: "float32",
    });
    go(() => arrayWrite(fillConstant({ shape: [1], value: 1 }), int64(0), arr));
    go(() => {
      arrayWrite(fillConstant({ shape: [1], value: 1 }), int64(0), kept);
      increment(filled("pin", 2));
    });
  });
  assert(placement.isShared(0, "arr"));
  assertEquals(blockOf(placement, 2).movable, false);
  assert(!placement.isShared(0, "kept")); // only a pinned block uses it
});

// ---- Pinned goroutines --------------------------------------------------------

Deno.test("placeProgram() pins a go reading a tensor its parent rewrites after the spawn", () => {
  const { program, placement } = place(() => {
    const ch = makeChannel({ name: "ch", capacity: 1 });
    const x = filled("x", 1);
    go(() => send(ch, x));
    assign(fillConstant({ shape: [1], value: 2 }), { out: x });
    print(recv(ch));
  });
  const p = blockOf(placement, 1);
  const writer = opIndex(program, 0, "assign");
  assertEquals(p.movable, false);
  assertEquals(p.pinnedBy, {
    variable: "x",
    cause: "after_spawn",
    writer: { block: 0, index: writer, type: "assign" },
    reason: `written after the spawn by block 0 op ${writer} (assign)`,
  });
  assertEquals([p.copied, p.shared], [[], []]);
  assert(!placement.isShared(0, "ch")); // only a pinned block uses it
});

Deno.test("placeProgram() pins a go in a loop whose body rewrites an outer tensor before the spawn", () => {
  const { placement } = place(() => {
    const ch = makeChannel({ name: "ch", capacity: 3 });
    const x = filled("x", 0);
    forRange(3, () => {
      assign(fillConstant({ shape: [1], value: 5 }), { out: x }); // block 1 op 1
      go(() => send(ch, x));
    });
  });
  const p = blockOf(placement, 2);
  assertEquals(p.pinnedBy?.variable, "x");
  assertEquals(p.pinnedBy?.cause, "after_spawn");
  assertEquals(p.pinnedBy?.writer, { block: 1, index: 1, type: "assign" });
});

Deno.test("placeProgram() moves a go in a loop reading the loop's own fresh variable", () => {
  // Each pass of a while makes new locals: a later pass writes another
  // variable than the one an earlier goroutine reads.
  const { placement } = place(() => {
    const ch = makeChannel({ name: "ch", capacity: 3 });
    forRange(3, (i) => {
      const x = cast(i, "float32"); // declared in the loop body
      go(() => send(ch, x));
    });
  });
  const p = blockOf(placement, 2);
  assertEquals([p.movable, p.shared, p.copied.length], [true, ["ch"], 1]);
});

Deno.test("placeProgram() pins a go reading a counter its loop increments", () => {
  const { placement } = place(() => {
    const ch = makeChannel({ name: "ch", capacity: 3 });
    forRange(3, (i) => go(() => send(ch, i)));
  });
  const p = blockOf(placement, 2);
  assertEquals(p.pinnedBy?.cause, "after_spawn");
  assertEquals(p.pinnedBy?.writer.type, "increment");
});

Deno.test("placeProgram() pins a go reading a variable another goroutine writes", () => {
  const { placement } = place(() => {
    const ch = makeChannel({ name: "ch", capacity: 2 });
    const x = filled("x", 1);
    go(() => increment(x)); // block 1, spawned first
    go(() => send(ch, x)); // block 2
  });
  assertEquals(blockOf(placement, 1).pinnedBy?.reason, "written by the block");
  const p = blockOf(placement, 2);
  assertEquals(p.pinnedBy, {
    variable: "x",
    cause: "goroutine",
    writer: { block: 1, index: 0, type: "increment" },
    reason: "written by another goroutine at block 1 op 0 (increment)",
  });
});

Deno.test("placeProgram() pins a go writing an outer variable, whatever its kind", () => {
  const { placement } = place(() => {
    const total = filled("total", 0);
    const ch = makeChannel({ name: "ch" });
    go(() => increment(total));
    go(() => assign(makeChannel(), { out: ch })); // rebinds a channel variable
  });
  assertEquals(blockOf(placement, 1).pinnedBy?.variable, "total");
  assertEquals(blockOf(placement, 1).pinnedBy?.cause, "block");
  assertEquals(blockOf(placement, 2).pinnedBy?.variable, "ch");
});

Deno.test("placeProgram() pins a go whose select receive case writes an outer variable", () => {
  const { placement } = place(() => {
    const ch = makeChannel({ name: "ch", capacity: 1 });
    const total = filled("total", 0);
    go(() => select((s) => s.recv(ch, (v) => assign(v, { out: total }))));
  });
  const p = blockOf(placement, 1);
  assertEquals(p.pinnedBy?.variable, "total");
  assertEquals(p.pinnedBy?.writer.type, "assign");
  // The case block itself is no goroutine: only go and parallel_for are placed.
  assertEquals([...placement.blocks.keys()], [1]);
});

Deno.test("placeProgram() pins a go whose select receives into an outer variable", () => {
  const { placement } = place(() => {
    const ch = makeChannel({ name: "ch", capacity: 1 });
    const value = named("value");
    go(() => {
      const program = defaultProgram();
      program.currentBlock.appendOp({
        type: "select",
        inputs: { X: [ch, value] },
        attrs: {
          cases: ["recv,ch,value,"],
          sub_blocks: [program.subBlock(() => {})],
        },
      });
    });
  });
  assertEquals(blockOf(placement, 1).pinnedBy?.variable, "value");
  assertEquals(blockOf(placement, 1).pinnedBy?.writer.type, "select");
});

Deno.test("placeProgram() pins a go in one select case when another case writes what it reads", () => {
  const { placement } = place(() => {
    const ch = makeChannel({ name: "ch", capacity: 1 });
    const x = filled("x", 1);
    select((s) => {
      s.recv(
        ch,
        () => assign(fillConstant({ shape: [1], value: 2 }), { out: x }),
      );
      s.default(() => go(() => print(x)));
    });
  });
  const go1 = [...placement.blocks.values()][0];
  assertEquals(go1.pinnedBy?.cause, "after_spawn");
  assertEquals(go1.pinnedBy?.writer.type, "assign");
});

// ---- parallel_for -------------------------------------------------------------

Deno.test("placeProgram() moves a parallel_for whose body stores into arr[index]", () => {
  const { placement, got: arr } = place(() => {
    const arr = createArray({ dtype: "float32" });
    const ten = fillConstant({ shape: [1], value: 10 });
    parallelFor(
      4,
      (index) =>
        arrayWrite(scale(cast(index, "float32"), { scale: 2 }), index, arr),
    );
    print(ten);
    return arr;
  });
  const p = blockOf(placement, 1);
  assertEquals(p.op.type, "parallel_for");
  assertEquals([p.movable, p.shared], [true, [arr.name]]);
  assert(placement.isShared(0, arr.name));
});

Deno.test("placeProgram() moves a parallel_for reading a tensor its parent rewrites after it", () => {
  // The parent waits for every iteration before its next op runs.
  const { placement } = place(() => {
    const arr = createArray({ dtype: "float32" });
    const x = filled("x", 1);
    forRange(2, () => {
      parallelFor(2, (index) => arrayWrite(x, index, arr));
      increment(x);
    });
  });
  const p = [...placement.blocks.values()][0];
  assertEquals([p.movable, p.copied], [true, ["x"]]);
});

Deno.test("placeProgram() pins a parallel_for whose body rebinds an outer tensor", () => {
  const { placement } = place(() => {
    const total = filled("total", 0);
    parallelFor(4, () => increment(total));
  });
  const p = blockOf(placement, 1);
  assertEquals(p.pinnedBy?.variable, "total");
  assertEquals(p.pinnedBy?.reason, "written by the block");
});

Deno.test("placeProgram() pins a parallel_for reading a tensor a running goroutine writes", () => {
  const { placement } = place(() => {
    const arr = createArray({ dtype: "float32" });
    const x = filled("x", 1);
    go(() => increment(x));
    parallelFor(2, (index) => arrayWrite(x, index, arr));
  });
  assertEquals(blockOf(placement, 2).pinnedBy?.cause, "goroutine");
  assertEquals(blockOf(placement, 2).pinnedBy?.writer, {
    block: 1,
    index: 0,
    type: "increment",
  });
});

Deno.test("placeProgram() pins a go reading what another iteration of its parallel_for rewrites", () => {
  const { placement } = place(() => {
    const ch = makeChannel({ name: "ch", capacity: 4 });
    const x = filled("x", 1);
    parallelFor(4, (index) => {
      assign(cast(index, "float32"), { out: x }); // pins the parallel_for
      go(() => send(ch, x)); // before it in its iteration, not in the others
    });
  });
  assertEquals(blockOf(placement, 1).pinnedBy?.cause, "block");
  const inner = blockOf(placement, 2);
  assertEquals(inner.pinnedBy?.cause, "goroutine");
  assertEquals(inner.pinnedBy?.writer.type, "assign");
});

Deno.test("placeProgram() moves a go reading a tensor a finished parallel_for rebound", () => {
  // parallel_for returns after its iterations: their writes come first.
  const { placement } = place(() => {
    const ch = makeChannel({ name: "ch", capacity: 1 });
    const x = filled("x", 1);
    parallelFor(1, () => increment(x));
    go(() => send(ch, x));
  });
  assertEquals(blockOf(placement, 1).movable, false);
  assertEquals(blockOf(placement, 2).movable, true);
});

// ---- Nesting ----------------------------------------------------------------

Deno.test("placeProgram() places a go inside a go against its enclosing goroutine", () => {
  const { placement } = place(() => {
    const ch = makeChannel({ name: "ch", capacity: 2 });
    go(() => { // block 1: movable
      const local = makeChannel({ name: "local", capacity: 1 });
      const t = fillConstant({ shape: [1], value: 1 });
      go(() => send(local, int64(1))); // block 2: movable, local shared
      go(() => send(ch, t)); // block 3: t is rewritten below
      increment(t);
      send(ch, recv(local));
    });
  });
  assertEquals(blockOf(placement, 1).movable, true);
  assertEquals(blockOf(placement, 1).shared, ["ch"]);
  assertEquals(blockOf(placement, 2).shared, ["local"]);
  assert(placement.isShared(1, "local"));
  assertEquals(blockOf(placement, 3).pinnedBy?.cause, "after_spawn");
  assertEquals(blockOf(placement, 3).pinnedBy?.writer, {
    block: 1,
    index: 4,
    type: "increment",
  });
});

Deno.test("placeProgram() pins an outer go when a go inside it writes an outer variable", () => {
  const { placement } = place(() => {
    const x = filled("x", 1);
    go(() => go(() => increment(x)));
  });
  assertEquals(blockOf(placement, 1).pinnedBy?.writer, {
    block: 2,
    index: 0,
    type: "increment",
  });
  assertEquals(blockOf(placement, 2).pinnedBy?.cause, "block");
});

Deno.test("placeProgram() treats the instances of a go spawned in a loop as other goroutines", () => {
  const { placement } = place(() => {
    const ch = makeChannel({ name: "ch", capacity: 4 });
    const x = filled("x", 1);
    forRange(2, () => {
      go(() => { // pinned: writes x
        assign(fillConstant({ shape: [1], value: 3 }), { out: x });
        parallelFor(2, () => send(ch, x)); // another instance rewrites x
      });
    });
  });
  const pf = [...placement.blocks.values()].find((p) =>
    p.op.type === "parallel_for"
  );
  assertEquals(pf?.pinnedBy?.cause, "goroutine");
});

Deno.test("placeProgram() places the Fluid daisy chain's links and shares every link channel", () => {
  const { program, placement } = place(() => {
    const n = int64(5);
    const leftmost = makeChannel({ dtype: "int64", name: "leftmost" });
    const left = assign(leftmost);
    const i = int64(0);
    const more = lessThan(i, n);
    whileLoop(more, () => {
      const right = makeChannel({ dtype: "int64", name: "right" });
      go(() => send(left, elementwiseAdd(recv(right), int64(1))), {
        args: [left, right],
      });
      assign(right, { out: left });
      increment(i);
      lessThan(i, n, { out: more });
    });
    go(() => send(left, int64(1)), { args: [left] });
    print(recv(leftmost));
  });
  for (const p of placement.blocks.values()) assertEquals(p.movable, true);
  assert(placement.isShared(0, "leftmost"));
  assert(placement.isShared(1, "right"));
  assert(placement.sharesOutput(1, opIndex(program, 1, "channel_create")));
});

// ---- Robustness and size ------------------------------------------------------

Deno.test("placeProgram() places nothing in a program without goroutines", () => {
  const { placement } = place(() => print(fillConstant({ shape: [1] })));
  assertEquals(placement.blocks.size, 0);
  assertEquals([placement.isShared(0, "x"), placement.isShared(9, "x")], [
    false,
    false,
  ]);
  assertEquals(placement.sharesOutput(7, 0), false);
});

Deno.test("placeProgram() analyses 10,000 goroutines reading 10,000 rewritten tensors", () => {
  const [program] = buildProgram(() => {
    const ch = makeChannel({ name: "ch", capacity: 1 });
    const xs = Array.from({ length: 100 }, () => fillConstant({ shape: [1] }));
    for (let k = 0; k < 100; k++) {
      for (const x of xs) increment(x);
      for (let g = 0; g < 100; g++) go(() => send(ch, xs[g]));
    }
  });
  // Its speed is bench/placement_bench.ts's to measure.
  const placement = placeProgram(program.desc);
  const pinned = [...placement.blocks.values()].filter((p) => !p.movable);
  assertEquals([placement.blocks.size, pinned.length], [10_000, 9_900]);
});
