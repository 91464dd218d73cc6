import { assertEquals, assertThrows } from "@std/assert";
import {
  Instructions,
  ModuleBuilder,
  writeS32,
  writeU32,
} from "../../../../kernels/cpu/wasm/module_builder.ts";

function encoded(write: (out: number[], v: number) => void, v: number) {
  const out: number[] = [];
  write(out, v);
  return out;
}

// Instantiates a one-function module over a fresh unshared memory.
function single<P extends string, L extends string = never>(
  spec: {
    params: Record<P, "i32" | "f32">;
    locals?: Record<L, "i32" | "f32" | "v128">;
    results?: ("i32" | "f32")[];
  },
  body: (c: Instructions, v: Readonly<Record<P | L, number>>) => void,
): { run: (...args: number[]) => number; memory: WebAssembly.Memory } {
  const builder = new ModuleBuilder({ shared: false, minPages: 1 });
  builder.addFunction({ ...spec, exportAs: "run" }, body);
  const memory = new WebAssembly.Memory({ initial: 1 });
  const module = new WebAssembly.Module(builder.build());
  const instance = new WebAssembly.Instance(module, { env: { memory } });
  return {
    run: instance.exports.run as (...args: number[]) => number,
    memory,
  };
}

// --- LEB128

Deno.test("writeU32() encodes unsigned LEB128", () => {
  assertEquals(encoded(writeU32, 0), [0]);
  assertEquals(encoded(writeU32, 127), [0x7f]);
  assertEquals(encoded(writeU32, 128), [0x80, 0x01]);
  assertEquals(encoded(writeU32, 624485), [0xe5, 0x8e, 0x26]);
  assertEquals(encoded(writeU32, 2 ** 32 - 1), [0xff, 0xff, 0xff, 0xff, 0x0f]);
});

Deno.test("writeS32() encodes signed LEB128", () => {
  assertEquals(encoded(writeS32, 0), [0]);
  assertEquals(encoded(writeS32, -1), [0x7f]);
  assertEquals(encoded(writeS32, 63), [0x3f]);
  assertEquals(encoded(writeS32, 64), [0xc0, 0x00]);
  assertEquals(encoded(writeS32, -64), [0x40]);
  assertEquals(encoded(writeS32, -65), [0xbf, 0x7f]);
  assertEquals(encoded(writeS32, 2 ** 31 - 1), [0xff, 0xff, 0xff, 0xff, 0x07]);
  assertEquals(encoded(writeS32, -(2 ** 31)), [0x80, 0x80, 0x80, 0x80, 0x78]);
});

Deno.test("Instructions.i32Const() round-trips through the engine", () => {
  for (
    const value of [
      0,
      1,
      -1,
      63,
      64,
      -64,
      -65,
      1 << 20,
      2 ** 31 - 1,
      -(2 ** 31),
    ]
  ) {
    const { run } = single(
      { params: {}, results: ["i32"] },
      (c) => c.i32Const(value),
    );
    assertEquals(run(), value);
  }
});

// --- Modules and memories

Deno.test("ModuleBuilder.build() gives an empty module that validates", () => {
  const bytes = new ModuleBuilder({ shared: false, minPages: 0 }).build();
  assertEquals(WebAssembly.validate(bytes), true);
  const imports = WebAssembly.Module.imports(new WebAssembly.Module(bytes));
  assertEquals(imports, [{ module: "env", name: "memory", kind: "memory" }]);
});

Deno.test("ModuleBuilder imports a shared memory with its limits", () => {
  const builder = new ModuleBuilder({ shared: true, minPages: 2, maxPages: 8 });
  const module = new WebAssembly.Module(builder.build());
  const shared = (initial: number, maximum: number) =>
    new WebAssembly.Memory({ initial, maximum, shared: true });
  new WebAssembly.Instance(module, { env: { memory: shared(2, 8) } });
  for (
    const memory of [
      shared(1, 8), // below minPages
      shared(2, 9), // above maxPages
      new WebAssembly.Memory({ initial: 2, maximum: 8 }), // not shared
    ]
  ) {
    assertThrows(
      () => new WebAssembly.Instance(module, { env: { memory } }),
      WebAssembly.LinkError,
    );
  }
});

Deno.test("ModuleBuilder() rejects a shared memory without maxPages", () => {
  assertThrows(
    () => new ModuleBuilder({ shared: true, minPages: 1 }),
    RangeError,
  );
});

Deno.test("ModuleBuilder.addFunction() numbers functions and exports only named ones", () => {
  const builder = new ModuleBuilder({ shared: false, minPages: 0 });
  const seven = builder.addFunction(
    { params: {}, results: ["i32"] },
    (c) => c.i32Const(7),
  );
  const twice = builder.addFunction(
    { exportAs: "twice", params: {}, results: ["i32"] },
    (c) => c.call(seven).call(seven).i32Add(),
  );
  assertEquals([seven, twice], [0, 1]);
  const module = new WebAssembly.Module(builder.build());
  assertEquals(WebAssembly.Module.exports(module), [
    { name: "twice", kind: "function" },
  ]);
  const memory = new WebAssembly.Memory({ initial: 0 });
  const { exports } = new WebAssembly.Instance(module, { env: { memory } });
  assertEquals((exports.twice as () => number)(), 14);
});

// --- Instructions

Deno.test("Instructions loops with block, loop, br_if and br", () => {
  // sum of 1..n
  const { run } = single(
    { params: { n: "i32" }, locals: { sum: "i32" }, results: ["i32"] },
    (c, v) => {
      c.block().loop();
      c.localGet(v.n).i32Eqz().brIf(1);
      c.localGet(v.sum).localGet(v.n).i32Add().localSet(v.sum);
      c.localGet(v.n).i32Const(1).i32Sub().localSet(v.n);
      c.br(0).end().end();
      c.localGet(v.sum);
    },
  );
  assertEquals(run(100), 5050);
  assertEquals(run(0), 0);
});

Deno.test("Instructions.if() and else() pick a branch", () => {
  const { run } = single(
    { params: { x: "i32" }, locals: { out: "i32" }, results: ["i32"] },
    (c, v) => {
      c.localGet(v.x).if().i32Const(10).localSet(v.out);
      c.else().i32Const(20).localSet(v.out).end();
      c.localGet(v.out);
    },
  );
  assertEquals([run(1), run(0)], [10, 20]);
});

Deno.test("Instructions i32 operators compute as JavaScript's", () => {
  const cases: [keyof Instructions, (a: number, b: number) => number][] = [
    ["i32Add", (a, b) => (a + b) | 0],
    ["i32Sub", (a, b) => (a - b) | 0],
    ["i32Mul", (a, b) => Math.imul(a, b)],
    ["i32And", (a, b) => a & b],
    ["i32Shl", (a, b) => a << b],
    ["i32ShrU", (a, b) => (a >>> b) | 0],
    ["i32Eq", (a, b) => Number(a === b)],
    ["i32Ne", (a, b) => Number(a !== b)],
    ["i32LtS", (a, b) => Number(a < b)],
    ["i32LtU", (a, b) => Number(a >>> 0 < b >>> 0)],
    ["i32GtS", (a, b) => Number(a > b)],
    ["i32GeS", (a, b) => Number(a >= b)],
  ];
  const inputs = [0, 1, 5, -3, 31, 2 ** 31 - 1, -(2 ** 31)];
  for (const [op, expected] of cases) {
    const { run } = single(
      { params: { a: "i32", b: "i32" }, results: ["i32"] },
      (c, v) => (c.localGet(v.a).localGet(v.b)[op] as () => Instructions)(),
    );
    for (const a of inputs) {
      for (const b of inputs) assertEquals(run(a, b), expected(a, b), op);
    }
  }
});

Deno.test("Instructions.select() and i32Eqz() choose by a condition", () => {
  const { run } = single(
    { params: { x: "i32" }, results: ["i32"] },
    (c, v) => c.i32Const(1).i32Const(2).localGet(v.x).i32Eqz().select(),
  );
  assertEquals([run(0), run(5)], [1, 2]);
});

Deno.test("Instructions f32 scalar ops load, compute and store float32", () => {
  const { run, memory } = single(
    { params: { p: "i32" }, results: [] },
    (c, v) => {
      // mem[p + 8] = mem[p] * mem[p + 4] + 0.1
      c.localGet(v.p);
      c.localGet(v.p).f32Load().localGet(v.p).f32Load(4).f32Mul();
      c.f32Const(0.1).f32Add().f32Store(8);
    },
  );
  const f32 = new Float32Array(memory.buffer);
  f32.set([1.5, 3], 4);
  run(16);
  const f = Math.fround;
  assertEquals(f32[6], f(f(1.5 * 3) + f(0.1)));
});

Deno.test("Instructions f32x4 ops work lane by lane", () => {
  const { run, memory } = single(
    { params: { p: "i32" }, locals: { v: "v128" }, results: [] },
    (c, v) => {
      // out = x * splat(s) + y, at p + 48; x at p, y at p + 16, s at p + 32
      c.localGet(v.p);
      c.localGet(v.p).v128Load().localGet(v.p).v128Load32Splat(32).f32x4Mul();
      c.localGet(v.p).v128Load(16).f32x4Add().v128Store(48);
      // lane 2 of the result, plus 1, stored at p + 64 and put back in lane 0
      c.localGet(v.p).v128Load(48).localSet(v.v);
      c.localGet(v.p).localGet(v.v).f32x4ExtractLane(2).f32Const(1).f32Add()
        .f32Store(64);
      c.localGet(v.p).localGet(v.v).localGet(v.p).f32Load(64)
        .f32x4ReplaceLane(0).v128Store(80);
      c.localGet(v.p).f32Const(4).f32x4Splat().v128Store(96);
    },
  );
  const f32 = new Float32Array(memory.buffer);
  f32.set([1, 2, 3, 4, 10, 20, 30, 40, 2], 1); // p = 4: unaligned is legal
  run(4);
  assertEquals([...f32.subarray(13, 17)], [12, 24, 36, 48]);
  assertEquals(f32[17], 37);
  assertEquals([...f32.subarray(21, 25)], [37, 24, 36, 48]);
  assertEquals([...f32.subarray(25, 29)], [4, 4, 4, 4]);
});

Deno.test("Instructions.localTee() sets a local and keeps the value", () => {
  const { run } = single(
    { params: { x: "i32" }, locals: { y: "i32" }, results: ["i32"] },
    (c, v) => c.localGet(v.x).localTee(v.y).localGet(v.y).i32Mul(),
  );
  assertEquals(run(9), 81);
});

Deno.test("Instructions.bytes() holds only what was written", () => {
  assertEquals([...new Instructions().bytes()], []);
  assertEquals([...new Instructions().block().end().bytes()], [
    0x02,
    0x40,
    0x0b,
  ]);
  // SIMD opcodes of 0x80 and above take two LEB128 bytes after the prefix.
  assertEquals([...new Instructions().f32x4Mul().bytes()], [0xfd, 0xe6, 0x01]);
});
