// The WASM SIMD window module's code, emitted at load time by
// `module_builder.ts` for the CPU convolutions (`../_conv_workspace.ts`
// instantiates it): one module per filter height, width and column
// dilation, which fix the unrolled taps and their static load offsets;
// strides and the row dilation are arguments.
//
// Scheme: the caller lays each input plane out zero-padded, rows `stride`
// bytes apart, so that every tap of every output lies inside it (pad_rows
// copies the rows in). Then no function checks a bound:
//   `depthwise` computes output rows four columns at a time: per four
//   outputs and tap (a, b), one unaligned v128 load at row i·sh + a·dh,
//   column j + b·dw, times the tap's weight splatted once per call;
//   columns past the last multiple of four are summed one at a time in the
//   same tap order. Sums are f32, one rounding per multiply and per add.
//   `pack` writes the patch matrix of padded planes in the gemm's packed
//   panel layout (wasm/gemm.ts): panel p holds output positions
//   [8p, 8p + 8) as K rows of 8 floats, row (c·KH + a)·KW + b being tap
//   (a, b) of plane c. Eight positions in one output row at unit stride
//   across read 8 consecutive floats per tap (two v128 loads); others read
//   lane by lane, and lanes past the last position are zero.

import { NR } from "./_gemm_module.ts";
import { type Instructions, ModuleBuilder } from "./module_builder.ts";

/** The shape of filter a module is built for. */
export interface WindowTaps {
  /** Filter rows. */
  readonly kh: number;
  /** Filter columns. */
  readonly kw: number;
  /** Column dilation. */
  readonly dw: number;
}

/**
 * The window module's bytes: `pad_rows`, `depthwise` and `pack` over an
 * imported (unshared) memory. Addresses and strides are bytes.
 *
 * - `pad_rows(raw, padded, rows, w, rawStride, stride)`: copies `rows`
 *   rows of `w` floats, `rawStride` bytes apart at `raw`, to `padded` with
 *   rows `stride` bytes apart.
 * - `depthwise(padded, weights, out, oh, ow, stride, sh, dh)`: out
 *   (oh × ow floats, packed) = the depthwise convolution of the padded
 *   plane by the kh·kw weights at `weights`; output row i reads padded
 *   rows i·sh + a·dh.
 * - `pack(padded, planes, plane, packed, oh, ow, stride, sh, sw, dh)`: the
 *   patch matrix of `planes` padded planes, `plane` bytes apart, packed
 *   into panels at `packed`.
 *
 * @param taps The filter's size and column dilation.
 * @returns The module's bytes.
 *
 * @example Usage
 * ```ts
 * import { buildWindowModule } from "./_window_module.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const module = new WebAssembly.Module(buildWindowModule({ kh: 3, kw: 3, dw: 1 }));
 * const names = WebAssembly.Module.exports(module).map((e) => e.name);
 * assertEquals(names, ["pad_rows", "depthwise", "pack"]);
 * ```
 */
export function buildWindowModule(
  taps: WindowTaps,
): Uint8Array<ArrayBuffer> {
  const builder = new ModuleBuilder({ shared: false, minPages: 0 });
  addPadRows(builder);
  addDepthwise(builder, taps);
  addPack(builder, taps);
  return builder.build();
}

function addPadRows(builder: ModuleBuilder): void {
  const params = i32s("raw", "padded", "rows", "w", "rawStride", "stride");
  const locals = i32s("r", "src", "dst", "left");
  builder.addFunction({ exportAs: "pad_rows", params, locals }, (c, v) => {
    c.i32Const(0).localSet(v.r);
    whileTrue(c, () => c.localGet(v.r).localGet(v.rows).i32LtS(), () => {
      c.localGet(v.raw).localGet(v.r).localGet(v.rawStride).i32Mul().i32Add()
        .localSet(v.src);
      c.localGet(v.padded).localGet(v.r).localGet(v.stride).i32Mul().i32Add()
        .localSet(v.dst);
      c.localGet(v.w).localSet(v.left);
      // Four floats at a time while four remain, then one.
      for (const width of [4, 1]) {
        whileTrue(
          c,
          () => c.localGet(v.left).i32Const(width).i32GeS(),
          () => {
            c.localGet(v.dst).localGet(v.src);
            if (width === 4) c.v128Load().v128Store();
            else c.f32Load().f32Store();
            addTo(c, v.src, 4 * width);
            addTo(c, v.dst, 4 * width);
            addTo(c, v.left, -width);
          },
        );
      }
      addTo(c, v.r, 1);
    });
  });
}

function addDepthwise(builder: ModuleBuilder, taps: WindowTaps): void {
  const { kh, kw, dw } = taps;
  const rows = [...Array(kh).keys()];
  const cols = [...Array(kw).keys()];
  const params = i32s(
    "padded",
    "weights",
    "out",
    "oh",
    "ow",
    "stride",
    "sh",
    "dh",
  );
  const locals: Record<string, "i32" | "f32" | "v128"> = {
    i: "i32",
    j: "i32",
    dst: "i32",
    base: "i32",
    acc: "v128",
    sum: "f32",
  };
  for (const a of rows) locals[`r${a}`] = "i32";
  for (const a of rows) {
    for (const b of cols) {
      locals[`w${a}_${b}`] = "v128";
      locals[`s${a}_${b}`] = "f32";
    }
  }
  builder.addFunction({ exportAs: "depthwise", params, locals }, (c, v) => {
    const w = (a: number, b: number) => v[`w${a}_${b}`];
    const s = (a: number, b: number) => v[`s${a}_${b}`];
    for (const a of rows) {
      for (const b of cols) {
        const at = 4 * (a * kw + b);
        c.localGet(v.weights).v128Load32Splat(at).localSet(w(a, b));
        c.localGet(v.weights).f32Load(at).localSet(s(a, b));
      }
    }
    c.localGet(v.out).localSet(v.dst);
    c.i32Const(0).localSet(v.i);
    whileTrue(c, () => c.localGet(v.i).localGet(v.oh).i32LtS(), () => {
      // r_a = padded + (i·sh + a·dh)·stride.
      c.localGet(v.i).localGet(v.sh).i32Mul().localGet(v.stride).i32Mul()
        .localGet(v.padded).i32Add().localSet(v.base);
      for (const a of rows) {
        c.localGet(v.base).localGet(v.dh).i32Const(a).i32Mul()
          .localGet(v.stride).i32Mul().i32Add().localSet(v[`r${a}`]);
      }
      c.i32Const(0).localSet(v.j);
      // Four columns while four remain.
      whileTrue(
        c,
        () => c.localGet(v.ow).localGet(v.j).i32Sub().i32Const(4).i32GeS(),
        () => {
          c.f32Const(0).f32x4Splat().localSet(v.acc);
          for (const a of rows) {
            for (const b of cols) {
              c.localGet(v.acc).localGet(w(a, b));
              c.localGet(v[`r${a}`]).v128Load(4 * b * dw).f32x4Mul().f32x4Add()
                .localSet(v.acc);
            }
          }
          c.localGet(v.dst).localGet(v.acc).v128Store();
          for (const a of rows) addTo(c, v[`r${a}`], 16);
          addTo(c, v.dst, 16);
          addTo(c, v.j, 4);
        },
      );
      // Then one at a time.
      whileTrue(c, () => c.localGet(v.j).localGet(v.ow).i32LtS(), () => {
        c.f32Const(0).localSet(v.sum);
        for (const a of rows) {
          for (const b of cols) {
            c.localGet(v.sum).localGet(s(a, b));
            c.localGet(v[`r${a}`]).f32Load(4 * b * dw).f32Mul().f32Add()
              .localSet(v.sum);
          }
        }
        c.localGet(v.dst).localGet(v.sum).f32Store();
        for (const a of rows) addTo(c, v[`r${a}`], 4);
        addTo(c, v.dst, 4);
        addTo(c, v.j, 1);
      });
      addTo(c, v.i, 1);
    });
  });
}

// pack: for each panel of NR positions (row i, column j of the next one,
// walked without division), the lanes' byte offsets within a plane; then
// per plane and tap, NR floats from plane + lane offset + tap offset.
function addPack(builder: ModuleBuilder, taps: WindowTaps): void {
  const { kh, kw, dw } = taps;
  const lanes = [...Array(NR).keys()];
  const params = i32s(
    "padded",
    "planes",
    "plane",
    "packed",
    "oh",
    "ow",
    "stride",
    "sh",
    "sw",
    "dh",
  );
  const locals: Record<string, "i32"> = i32s(
    "q",
    "total",
    "i",
    "j",
    "dst",
    "c",
    "src",
    "run",
    "rowTap",
  );
  for (const l of lanes) locals[`o${l}`] = "i32";
  builder.addFunction({ exportAs: "pack", params, locals }, (c, v) => {
    const o = (l: number) => v[`o${l}`];
    c.localGet(v.oh).localGet(v.ow).i32Mul().localSet(v.total);
    c.localGet(v.packed).localSet(v.dst);
    c.i32Const(0).localSet(v.q);
    c.i32Const(0).localSet(v.i);
    c.i32Const(0).localSet(v.j);
    whileTrue(c, () => c.localGet(v.q).localGet(v.total).i32LtS(), () => {
      // run: the panel's NR positions lie in one output row, unit stride.
      c.localGet(v.sw).i32Const(1).i32Eq()
        .localGet(v.ow).localGet(v.j).i32Sub().i32Const(NR).i32GeS()
        .i32And().localSet(v.run);
      // Lane offsets in bytes; -1 for a lane past the last position.
      for (const l of lanes) {
        c.localGet(v.q).i32Const(l).i32Add().localGet(v.total).i32LtS().if();
        c.localGet(v.i).localGet(v.sh).i32Mul().localGet(v.stride).i32Mul()
          .localGet(v.j).localGet(v.sw).i32Mul().i32Const(4).i32Mul().i32Add()
          .localSet(o(l));
        // The next position: j + 1, or the next row's first.
        addTo(c, v.j, 1);
        c.localGet(v.j).localGet(v.ow).i32Eq().if();
        c.i32Const(0).localSet(v.j);
        addTo(c, v.i, 1);
        c.end();
        c.else();
        c.i32Const(-1).localSet(o(l));
        c.end();
      }
      c.localGet(v.padded).localSet(v.src);
      c.i32Const(0).localSet(v.c);
      whileTrue(c, () => c.localGet(v.c).localGet(v.planes).i32LtS(), () => {
        for (let a = 0; a < kh; a++) {
          // rowTap = src + a·dh·stride.
          c.localGet(v.src).localGet(v.dh).i32Const(a).i32Mul()
            .localGet(v.stride).i32Mul().i32Add().localSet(v.rowTap);
          for (let b = 0; b < kw; b++) {
            const at = 4 * b * dw;
            c.localGet(v.run).if();
            for (let h = 0; h < NR / 4; h++) {
              c.localGet(v.dst).localGet(v.rowTap).localGet(o(0)).i32Add()
                .v128Load(at + 16 * h).v128Store(16 * h);
            }
            c.else();
            // A lane past the end reads a harmless in-range float (its
            // offset is -1 bytes from a tap inside the plane) and stores 0.
            for (const l of lanes) {
              c.localGet(v.dst).f32Const(0);
              c.localGet(v.rowTap).localGet(o(l)).i32Add().f32Load(at);
              c.localGet(o(l)).i32Const(0).i32LtS().select().f32Store(4 * l);
            }
            c.end();
            addTo(c, v.dst, 4 * NR);
          }
        }
        c.localGet(v.src).localGet(v.plane).i32Add().localSet(v.src);
        addTo(c, v.c, 1);
      });
      addTo(c, v.q, NR);
    });
  });
}

// while (cond) body; cond and body push nothing net but cond's i32.
function whileTrue(c: Instructions, cond: () => void, body: () => void): void {
  c.block().loop();
  cond();
  c.i32Eqz().brIf(1);
  body();
  c.br(0).end().end();
}

function i32s<N extends string>(...names: N[]): Record<N, "i32"> {
  return Object.fromEntries(names.map((n) => [n, "i32"])) as Record<N, "i32">;
}

function addTo(c: Instructions, local: number, delta: number): void {
  c.localGet(local).i32Const(delta).i32Add().localSet(local);
}
