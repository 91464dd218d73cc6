// A minimal WebAssembly binary encoder: enough of the format to emit CPU
// kernels from TypeScript at load time, so no .wasm blob or assembler is
// checked in.
//
// A module built here imports exactly one memory, `env.memory`, and defines
// functions over it; nothing else (no tables, globals, data or start). With
// the memory imported rather than defined, one compiled module instantiates
// against any caller's memory, including one `shared` memory seen by several
// Web Workers.
//
// Invariants:
//   Function indices are assigned in `addFunction` order from 0, since no
//   function is imported; a body can call only functions added before it.
//   Bytes are only appended: a body is final once `addFunction` returns.
//   Nothing here validates instruction sequences; the engine does that when
//   the module is compiled, and names the function and byte offset.

/** A WebAssembly value type. */
export type ValueType = "i32" | "i64" | "f32" | "f64" | "v128";

const VALUE_TYPE_CODE: Readonly<Record<ValueType, number>> = {
  i32: 0x7f,
  i64: 0x7e,
  f32: 0x7d,
  f64: 0x7c,
  v128: 0x7b,
};

// Opcodes after the 0xfd prefix (SIMD), written as LEB128 (0xe4 is two
// bytes).
const SIMD = {
  v128Load: 0x00,
  v128Load32Splat: 0x09,
  v128Store: 0x0b,
  f32x4Splat: 0x13,
  f32x4ExtractLane: 0x1f,
  f32x4ReplaceLane: 0x20,
  f32x4Add: 0xe4,
  f32x4Mul: 0xe6,
} as const;

/**
 * A function body being written, one instruction per method call. Methods
 * return `this`, so a stack-machine expression reads left to right, as in
 * the text format: `c.localGet(x).i32Const(4).i32Add().localSet(x)`.
 *
 * Blocks, loops and ifs take no parameters and give no results (block type
 * 0x40): kernels pass values through locals. Memory instructions take a
 * static byte `offset`, added to the address on the stack, and declare
 * their natural alignment, which is only a hint: any address is legal.
 *
 * @example Usage
 * ```ts
 * import { Instructions } from "./module_builder.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const c = new Instructions().localGet(0).i32Const(-1).i32Add();
 * assertEquals([...c.bytes()], [0x20, 0, 0x41, 0x7f, 0x6a]);
 * ```
 */
export class Instructions {
  #bytes: number[] = [];

  /**
   * The instructions written so far, without the body's closing `end`.
   *
   * @returns A copy of the encoded bytes.
   *
   * @example Usage
   * ```ts
   * import { Instructions } from "./module_builder.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const c = new Instructions().f32Const(1);
   * assertEquals([...c.bytes()], [0x43, 0, 0, 0x80, 0x3f]);
   * ```
   */
  bytes(): Uint8Array<ArrayBuffer> {
    return Uint8Array.from(this.#bytes);
  }

  /** `block`: a label that `br` jumps past. */
  block(): this {
    return this.#op(0x02, 0x40);
  }
  /** `loop`: a label that `br` jumps back to. */
  loop(): this {
    return this.#op(0x03, 0x40);
  }
  /** `if`: pops an i32 and runs what follows when it is not 0. */
  if(): this {
    return this.#op(0x04, 0x40);
  }
  /** `else` of the innermost `if`. */
  else(): this {
    return this.#op(0x05);
  }
  /** `end` of the innermost block, loop or if. */
  end(): this {
    return this.#op(0x0b);
  }
  /** `br`: jumps to the label `depth` levels out (0 is the innermost). */
  br(depth: number): this {
    return this.#op(0x0c).#u32(depth);
  }
  /** `br_if`: pops an i32 and jumps as `br` does when it is not 0. */
  brIf(depth: number): this {
    return this.#op(0x0d).#u32(depth);
  }
  /** `call` of the function with this index. */
  call(func: number): this {
    return this.#op(0x10).#u32(func);
  }
  /** `select`: pops a condition, then b, then a; pushes it ? a : b. */
  select(): this {
    return this.#op(0x1b);
  }

  /** `local.get` (parameters come first, then declared locals). */
  localGet(index: number): this {
    return this.#op(0x20).#u32(index);
  }
  /** `local.set`. */
  localSet(index: number): this {
    return this.#op(0x21).#u32(index);
  }
  /** `local.tee`: sets the local and leaves the value on the stack. */
  localTee(index: number): this {
    return this.#op(0x22).#u32(index);
  }

  /** `i32.const`; the value is taken modulo 2^32. */
  i32Const(value: number): this {
    return this.#op(0x41).#s32(value | 0);
  }
  /** `f32.const`, rounded to float32. */
  f32Const(value: number): this {
    this.#op(0x43);
    append(this.#bytes, new Uint8Array(new Float32Array([value]).buffer));
    return this;
  }

  /** `i32.eqz`. */
  i32Eqz(): this {
    return this.#op(0x45);
  }
  /** `i32.eq`. */
  i32Eq(): this {
    return this.#op(0x46);
  }
  /** `i32.ne`. */
  i32Ne(): this {
    return this.#op(0x47);
  }
  /** `i32.lt_s`. */
  i32LtS(): this {
    return this.#op(0x48);
  }
  /** `i32.lt_u`. */
  i32LtU(): this {
    return this.#op(0x49);
  }
  /** `i32.gt_s`. */
  i32GtS(): this {
    return this.#op(0x4a);
  }
  /** `i32.ge_s`. */
  i32GeS(): this {
    return this.#op(0x4e);
  }
  /** `i32.add`. */
  i32Add(): this {
    return this.#op(0x6a);
  }
  /** `i32.sub`. */
  i32Sub(): this {
    return this.#op(0x6b);
  }
  /** `i32.mul`. */
  i32Mul(): this {
    return this.#op(0x6c);
  }
  /** `i32.and`. */
  i32And(): this {
    return this.#op(0x71);
  }
  /** `i32.shl`. */
  i32Shl(): this {
    return this.#op(0x74);
  }
  /** `i32.shr_u`. */
  i32ShrU(): this {
    return this.#op(0x76);
  }

  /** `f32.load` from the popped address plus `offset`. */
  f32Load(offset = 0): this {
    return this.#op(0x2a).#memarg(2, offset);
  }
  /** `f32.store`: pops a value, then an address. */
  f32Store(offset = 0): this {
    return this.#op(0x38).#memarg(2, offset);
  }
  /** `f32.add`. */
  f32Add(): this {
    return this.#op(0x92);
  }
  /** `f32.mul`. */
  f32Mul(): this {
    return this.#op(0x94);
  }

  /** `v128.load`: 16 bytes from the popped address plus `offset`. */
  v128Load(offset = 0): this {
    return this.#simd(SIMD.v128Load).#memarg(4, offset);
  }
  /** `v128.load32_splat`: one 32-bit value into all four lanes. */
  v128Load32Splat(offset = 0): this {
    return this.#simd(SIMD.v128Load32Splat).#memarg(2, offset);
  }
  /** `v128.store`: pops a vector, then an address. */
  v128Store(offset = 0): this {
    return this.#simd(SIMD.v128Store).#memarg(4, offset);
  }
  /** `f32x4.splat`: an f32 into all four lanes. */
  f32x4Splat(): this {
    return this.#simd(SIMD.f32x4Splat);
  }
  /** `f32x4.extract_lane`. */
  f32x4ExtractLane(lane: number): this {
    return this.#simd(SIMD.f32x4ExtractLane).#op(lane);
  }
  /** `f32x4.replace_lane`: pops an f32, then a vector. */
  f32x4ReplaceLane(lane: number): this {
    return this.#simd(SIMD.f32x4ReplaceLane).#op(lane);
  }
  /** `f32x4.add`, lane by lane. */
  f32x4Add(): this {
    return this.#simd(SIMD.f32x4Add);
  }
  /** `f32x4.mul`, lane by lane. */
  f32x4Mul(): this {
    return this.#simd(SIMD.f32x4Mul);
  }

  #op(opcode: number, immediate?: number): this {
    this.#bytes.push(opcode);
    if (immediate !== undefined) this.#bytes.push(immediate);
    return this;
  }
  #simd(opcode: number): this {
    return this.#op(0xfd).#u32(opcode);
  }
  #u32(value: number): this {
    writeU32(this.#bytes, value);
    return this;
  }
  #s32(value: number): this {
    writeS32(this.#bytes, value);
    return this;
  }
  #memarg(alignLog2: number, offset: number): this {
    return this.#u32(alignLog2).#u32(offset);
  }
}

/** The memory a module imports as `env.memory`, in 64 KiB pages. */
export interface MemoryImport {
  /** Whether the memory is a `shared` one (then `maxPages` is required). */
  readonly shared: boolean;
  /** The fewest pages the caller's memory may have. */
  readonly minPages: number;
  /** The most pages the caller's memory may declare; none if absent. */
  readonly maxPages?: number;
}

/**
 * A function for {@linkcode ModuleBuilder.addFunction}. Parameter and local
 * names map to indices in the order the keys are written.
 *
 * @typeParam P The parameter names.
 * @typeParam L The local names.
 */
export interface FunctionSpec<P extends string, L extends string> {
  /** The export name, or `undefined` to keep the function internal. */
  readonly exportAs?: string;
  /** The parameters and their types. */
  readonly params: Readonly<Record<P, ValueType>>;
  /** The locals beyond the parameters, zero-initialised. */
  readonly locals?: Readonly<Record<L, ValueType>>;
  /** The result types. @default {[]} */
  readonly results?: readonly ValueType[];
}

/**
 * Builds a WebAssembly module that imports one memory, `env.memory`, and
 * defines functions over it.
 *
 * @example Usage
 * ```ts
 * import { ModuleBuilder } from "./module_builder.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const builder = new ModuleBuilder({ shared: false, minPages: 1 });
 * builder.addFunction(
 *   { exportAs: "add", params: { a: "i32", b: "i32" }, results: ["i32"] },
 *   (c, v) => c.localGet(v.a).localGet(v.b).i32Add(),
 * );
 * const memory = new WebAssembly.Memory({ initial: 1 });
 * const module = new WebAssembly.Module(builder.build());
 * const { exports } = new WebAssembly.Instance(module, { env: { memory } });
 * assertEquals((exports.add as (a: number, b: number) => number)(2, 3), 5);
 * ```
 */
export class ModuleBuilder {
  #memory: MemoryImport;
  #types: number[][] = [];
  #typeIndex = new Map<string, number>();
  #functionTypes: number[] = [];
  #exports: [string, number][] = [];
  #bodies: number[][] = [];

  /**
   * Starts a module that imports `memory`.
   *
   * @param memory The limits and sharing of the imported memory.
   * @throws {RangeError} If a shared memory has no `maxPages`.
   */
  constructor(memory: MemoryImport) {
    if (memory.shared && memory.maxPages === undefined) {
      throw new RangeError("build wasm module: shared memory needs maxPages");
    }
    this.#memory = memory;
  }

  /**
   * Adds a function, writing its body with `body`. The `end` that closes
   * the body is added here.
   *
   * @typeParam P The parameter names.
   * @typeParam L The local names.
   * @param spec The signature, locals and export name.
   * @param body Writes the instructions; gets the index of every parameter
   * and local by name.
   * @returns The function's index, for `call`.
   *
   * @example Usage
   * ```ts
   * import { ModuleBuilder } from "./module_builder.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const builder = new ModuleBuilder({ shared: false, minPages: 0 });
   * const f = builder.addFunction({ params: {} }, (c) => c);
   * const g = builder.addFunction({ params: {} }, (c) => c.call(f));
   * assertEquals([f, g], [0, 1]);
   * ```
   */
  addFunction<P extends string, L extends string = never>(
    spec: FunctionSpec<P, L>,
    body: (c: Instructions, v: Readonly<Record<P | L, number>>) => void,
  ): number {
    const index = this.#functionTypes.length;
    const params = Object.values<ValueType>(spec.params);
    const locals = Object.values<ValueType>(spec.locals ?? {});
    const names = [
      ...Object.keys(spec.params),
      ...Object.keys(spec.locals ?? {}),
    ];
    const v = Object.fromEntries(names.map((name, i) => [name, i]));
    this.#functionTypes.push(this.#typeOf(params, spec.results ?? []));
    if (spec.exportAs !== undefined) this.#exports.push([spec.exportAs, index]);

    const c = new Instructions();
    body(c, v as Record<P | L, number>);
    const code: number[] = [];
    // Locals are declared as runs of one type; one run per local is legal
    // and simplest.
    writeU32(code, locals.length);
    for (const type of locals) code.push(1, VALUE_TYPE_CODE[type]);
    append(code, c.bytes()).push(0x0b);
    this.#bodies.push(code);
    return index;
  }

  /**
   * Encodes the module.
   *
   * @returns The module's bytes, ready for `new WebAssembly.Module`.
   *
   * @example Usage
   * ```ts
   * import { ModuleBuilder } from "./module_builder.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const bytes = new ModuleBuilder({ shared: false, minPages: 0 }).build();
   * assertEquals([...bytes.subarray(0, 8)], [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
   * assertEquals(WebAssembly.validate(bytes), true);
   * ```
   */
  build(): Uint8Array<ArrayBuffer> {
    const out = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
    section(out, 1, vector(this.#types));

    const { shared, minPages, maxPages } = this.#memory;
    const memoryImport = append(name("env"), name("memory"));
    memoryImport.push(0x02);
    // Limits flags: bit 0 says a maximum follows, bit 1 marks shared.
    memoryImport.push((maxPages === undefined ? 0 : 1) | (shared ? 2 : 0));
    writeU32(memoryImport, minPages);
    if (maxPages !== undefined) writeU32(memoryImport, maxPages);
    section(out, 2, vector([memoryImport]));

    section(out, 3, vector(this.#functionTypes.map((t) => u32(t))));
    section(
      out,
      7,
      vector(this.#exports.map(([n, i]) => append(name(n), [0x00, ...u32(i)]))),
    );
    section(
      out,
      10,
      vector(this.#bodies.map((body) => append(u32(body.length), body))),
    );
    return Uint8Array.from(out);
  }

  #typeOf(params: ValueType[], results: readonly ValueType[]): number {
    const key = `${params}->${results}`;
    let index = this.#typeIndex.get(key);
    if (index === undefined) {
      index = this.#types.length;
      const type = append(
        [0x60],
        vector(params.map((t) => [VALUE_TYPE_CODE[t]])),
      );
      append(type, vector(results.map((t) => [VALUE_TYPE_CODE[t]])));
      this.#types.push(type);
      this.#typeIndex.set(key, index);
    }
    return index;
  }
}

/**
 * Appends `value` as unsigned LEB128: seven bits per byte, low bits first,
 * the top bit set on every byte but the last.
 *
 * @param out The bytes to append to.
 * @param value An integer in `[0, 2^32)`.
 *
 * @example Usage
 * ```ts
 * import { writeU32 } from "./module_builder.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const out: number[] = [];
 * writeU32(out, 624485);
 * assertEquals(out, [0xe5, 0x8e, 0x26]);
 * ```
 */
export function writeU32(out: number[], value: number): void {
  let v = value >>> 0;
  do {
    const byte = v & 0x7f;
    v >>>= 7;
    out.push(v === 0 ? byte : byte | 0x80);
  } while (v !== 0);
}

/**
 * Appends `value` as signed LEB128: as unsigned, but it stops once the rest
 * is all sign bits and the last byte's bit 6 already carries that sign.
 *
 * @param out The bytes to append to.
 * @param value An integer in `[-2^31, 2^31)`.
 *
 * @example Usage
 * ```ts
 * import { writeS32 } from "./module_builder.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const out: number[] = [];
 * writeS32(out, -123456);
 * assertEquals(out, [0xc0, 0xbb, 0x78]);
 * ```
 */
export function writeS32(out: number[], value: number): void {
  let v = value | 0;
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    const done = (v === 0 && (byte & 0x40) === 0) ||
      (v === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return;
  }
}

function u32(value: number): number[] {
  const out: number[] = [];
  writeU32(out, value);
  return out;
}

function name(text: string): number[] {
  const bytes = new TextEncoder().encode(text);
  return append(u32(bytes.length), bytes);
}

function vector(items: readonly (readonly number[])[]): number[] {
  const out = u32(items.length);
  for (const item of items) append(out, item);
  return out;
}

function section(out: number[], id: number, contents: number[]): void {
  out.push(id);
  append(append(out, u32(contents.length)), contents);
}

// out.push(...bytes) without a spread, which is slow and has a size limit.
function append(out: number[], bytes: ArrayLike<number>): number[] {
  for (let i = 0; i < bytes.length; i++) out.push(bytes[i]);
  return out;
}
