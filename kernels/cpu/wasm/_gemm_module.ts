// The GEMM module's code, emitted at load time by `module_builder.ts` for
// `gemm.ts` (which states what its functions promise).
//
// Scheme (the usual sgemm one): B is packed once into column panels of NR
// columns, each k rows of NR contiguous floats, zero-padded on the right.
// `gemm_rows` then walks k in blocks of kc and its rows in blocks of mc,
// copies each mc×kc block of A into the caller's scratch, and for every
// panel and every MR-row strip of the block calls a micro-kernel that keeps
// an MR×NR tile of C in registers: per step of k it loads one panel row
// (NR/4 vectors), splats one A value per row, and does MR·NR/4 f32x4 mul
// and add.

import { type Instructions, ModuleBuilder } from "./module_builder.ts";

// Register block: MR rows × NR columns of C, NV = NR/4 vectors per row.
// 4×8 takes 8 accumulators + 2 B vectors + 1 splat of x64's 16 xmm
// registers. Measured at 128–2048²: 5×8 is no faster, 6×8 spills and runs
// at 60%, 3×12 and 2×16 are slower.
const MR = 4;
const NV = 2;
/** Columns of B in a packed panel (and of C in a register tile). */
export const NR = 4 * NV;
// k steps per pass of the micro-kernel's loop: 1 gives 85% of 4; 8 no more.
const UNROLL = 4;

/**
 * The GEMM module's bytes: `pack_b` and `gemm_rows` over an imported memory.
 *
 * @param shared Whether the memory it imports is shared.
 * @returns The module's bytes.
 */
export function buildGemmModule(shared: boolean): Uint8Array<ArrayBuffer> {
  // 65536 pages is the whole 4 GiB a wasm32 memory can address; a shared
  // import needs some maximum, and the caller's must not exceed it.
  const builder = new ModuleBuilder(
    shared
      ? { shared: true, minPages: 0, maxPages: 65536 }
      : { shared: false, minPages: 0 },
  );
  const kernels: number[] = [];
  for (let mr = 1; mr <= MR; mr++) kernels.push(addMicroKernel(builder, mr));
  addPackB(builder);
  addGemmRows(builder, addPackA(builder), kernels);
  return builder.build();
}

// microkernel_<mr>(a, lda, b, c, ldc, kc, nr, accumulate): C[0:mr, 0:nr]
// (+)= A[0:mr, 0:kc] · Bpanel[0:kc, 0:nr]. `a` and `c` are the tile's first
// elements, `lda`/`ldc` row strides in bytes, `b` the panel's row pc.
// Precondition: 1 <= nr <= NR; kc >= 0.
function addMicroKernel(builder: ModuleBuilder, mr: number): number {
  const rows = [...Array(mr).keys()];
  const halves = [...Array(NV).keys()];
  const locals: Record<string, "i32" | "v128"> = { s: "v128", count: "i32" };
  for (const h of halves) locals[`b${h}`] = "v128";
  for (const r of rows) {
    locals[`a${r}`] = locals[`c${r}`] = "i32";
    for (const h of halves) locals[`acc${r}_${h}`] = "v128";
  }
  const params = i32s("a", "lda", "b", "c", "ldc", "kc", "nr", "accumulate");
  return builder.addFunction({ params, locals }, (c, v) => {
    const acc = (r: number, h: number) => v[`acc${r}_${h}`];
    for (const r of rows) {
      c.localGet(v.a).localGet(v.lda).i32Const(r).i32Mul().i32Add()
        .localSet(v[`a${r}`]);
      c.localGet(v.c).localGet(v.ldc).i32Const(r).i32Mul().i32Add()
        .localSet(v[`c${r}`]);
    }

    // Accumulators start at zero (locals are zero-initialised) or at C.
    c.localGet(v.accumulate).if();
    c.localGet(v.nr).i32Const(NR).i32Eq().if();
    for (const r of rows) {
      for (const h of halves) {
        c.localGet(v[`c${r}`]).v128Load(16 * h).localSet(acc(r, h));
      }
    }
    c.else();
    forEachLane(rows, (r, h, lane, col) => {
      c.localGet(v.nr).i32Const(col).i32GtS().if();
      c.localGet(acc(r, h)).localGet(v[`c${r}`]).f32Load(4 * col)
        .f32x4ReplaceLane(lane).localSet(acc(r, h));
      c.end();
    });
    c.end().end();

    // One k step, `step` steps past the pointers.
    const kStep = (step: number) => {
      for (const h of halves) {
        c.localGet(v.b).v128Load(4 * (step * NR + 4 * h)).localSet(v[`b${h}`]);
      }
      for (const r of rows) {
        c.localGet(v[`a${r}`]).v128Load32Splat(4 * step).localSet(v.s);
        for (const h of halves) {
          c.localGet(acc(r, h)).localGet(v.s).localGet(v[`b${h}`]).f32x4Mul()
            .f32x4Add().localSet(acc(r, h));
        }
      }
    };
    const advance = (steps: number) => {
      for (const r of rows) addTo(c, v[`a${r}`], 4 * steps);
      addTo(c, v.b, 4 * NR * steps);
      addTo(c, v.count, -steps);
    };
    c.localGet(v.kc).localSet(v.count);
    whileTrue(c, () => c.localGet(v.count).i32Const(UNROLL).i32GeS(), () => {
      for (let step = 0; step < UNROLL; step++) kStep(step);
      advance(UNROLL);
    });
    whileTrue(c, () => c.localGet(v.count).i32Const(0).i32GtS(), () => {
      kStep(0);
      advance(1);
    });

    c.localGet(v.nr).i32Const(NR).i32Eq().if();
    for (const r of rows) {
      for (const h of halves) {
        c.localGet(v[`c${r}`]).localGet(acc(r, h)).v128Store(16 * h);
      }
    }
    c.else();
    forEachLane(rows, (r, h, lane, col) => {
      c.localGet(v.nr).i32Const(col).i32GtS().if();
      c.localGet(v[`c${r}`]).localGet(acc(r, h)).f32x4ExtractLane(lane)
        .f32Store(4 * col);
      c.end();
    });
    c.end();
  });
}

// pack_b(b, packed, k, n): panel j0/NR holds columns [j0, j0 + NR) of B as
// k rows of NR floats, at packed + j0 * k * 4; columns past n are zero.
function addPackB(builder: ModuleBuilder): void {
  const params = i32s("b", "packed", "k", "n");
  const locals = {
    j0: "i32",
    nr: "i32",
    src: "i32",
    dst: "i32",
    p: "i32",
    zero: "v128",
  } as const;
  builder.addFunction({ exportAs: "pack_b", params, locals }, (c, v) => {
    c.i32Const(0).localSet(v.j0);
    whileTrue(c, () => c.localGet(v.j0).localGet(v.n).i32LtS(), () => {
      c.localGet(v.n).localGet(v.j0).i32Sub().localSet(v.nr);
      atMost(c, v.nr, () => c.i32Const(NR));
      c.localGet(v.b).localGet(v.j0).i32Const(4).i32Mul().i32Add()
        .localSet(v.src);
      c.localGet(v.packed).localGet(v.j0).localGet(v.k).i32Mul().i32Const(4)
        .i32Mul().i32Add().localSet(v.dst);
      c.i32Const(0).localSet(v.p);
      whileTrue(c, () => c.localGet(v.p).localGet(v.k).i32LtS(), () => {
        c.localGet(v.nr).i32Const(NR).i32Eq().if();
        for (let h = 0; h < NV; h++) {
          c.localGet(v.dst).localGet(v.src).v128Load(16 * h).v128Store(16 * h);
        }
        c.else();
        // Never read past column n: B's last row may end the memory.
        for (let h = 0; h < NV; h++) {
          c.localGet(v.dst).localGet(v.zero).v128Store(16 * h);
        }
        for (let col = 0; col < NR; col++) {
          c.localGet(v.nr).i32Const(col).i32GtS().if();
          c.localGet(v.dst).localGet(v.src).f32Load(4 * col).f32Store(4 * col);
          c.end();
        }
        c.end();
        c.localGet(v.src).localGet(v.n).i32Const(4).i32Mul().i32Add()
          .localSet(v.src);
        addTo(c, v.dst, 4 * NR);
        addTo(c, v.p, 1);
      });
      addTo(c, v.j0, NR);
    });
  });
}

// pack_a(a, lda, rows, kc, dst): copies rows × kc of A (row stride lda
// bytes) to dst, row-major with rows kc·4 bytes apart.
function addPackA(builder: ModuleBuilder): number {
  const params = i32s("a", "lda", "rows", "kc", "dst");
  const locals = i32s("r", "src", "p");
  return builder.addFunction({ params, locals }, (c, v) => {
    c.i32Const(0).localSet(v.r);
    whileTrue(c, () => c.localGet(v.r).localGet(v.rows).i32LtS(), () => {
      c.localGet(v.a).localGet(v.r).localGet(v.lda).i32Mul().i32Add()
        .localSet(v.src);
      c.i32Const(0).localSet(v.p);
      // Four floats at a time while four remain, then one.
      for (const width of [4, 1]) {
        whileTrue(
          c,
          () =>
            c.localGet(v.kc).localGet(v.p).i32Sub().i32Const(width).i32GeS(),
          () => {
            c.localGet(v.dst).localGet(v.src);
            if (width === 4) c.v128Load().v128Store();
            else c.f32Load().f32Store();
            addTo(c, v.src, 4 * width);
            addTo(c, v.dst, 4 * width);
            addTo(c, v.p, width);
          },
        );
      }
      addTo(c, v.r, 1);
    });
  });
}

// gemm_rows(a, packed, c, k, n, r0, r1, kc, mc, scratch): rows [r0, r1) of
// C = A·B. Loop order pc (k block) > ic (row block, copied to scratch) >
// j0 (panel) > strip: one panel's kc rows (kc·NR·4 bytes) stay in L1
// across the strips, and the mc×kc block of A stays in L2 across the
// panels. The copy puts A's rows kc·4 bytes apart whatever k is: read in
// place, rows k·4 bytes apart collide in the caches when k is a large
// power of 2 (25 instead of 40 GFLOPS at 512×4096×512). Row-major beats
// MR-interleaved strips here (40 against 35 GFLOPS).
function addGemmRows(
  builder: ModuleBuilder,
  packA: number,
  kernels: number[],
): void {
  const params = i32s(
    "a",
    "packed",
    "c",
    "k",
    "n",
    "r0",
    "r1",
    "kc",
    "mc",
    "scratch",
  );
  const locals = i32s(
    "lda",
    "ldc",
    "pc",
    "kcur",
    "accumulate",
    "ic",
    "iend",
    "j0",
    "nr",
    "bAddr",
    "aAddr",
    "ir",
    "mr",
  );
  builder.addFunction({ exportAs: "gemm_rows", params, locals }, (c, v) => {
    c.localGet(v.k).i32Const(4).i32Mul().localSet(v.lda);
    c.localGet(v.n).i32Const(4).i32Mul().localSet(v.ldc);
    // A do-while over k blocks, so k = 0 still runs one (zeroing) pass.
    c.i32Const(0).localSet(v.pc);
    c.loop();
    c.localGet(v.k).localGet(v.pc).i32Sub().localSet(v.kcur);
    atMost(c, v.kcur, () => c.localGet(v.kc));
    c.localGet(v.pc).i32Const(0).i32Ne().localSet(v.accumulate);
    c.localGet(v.r0).localSet(v.ic);
    whileTrue(c, () => c.localGet(v.ic).localGet(v.r1).i32LtS(), () => {
      c.localGet(v.ic).localGet(v.mc).i32Add().localSet(v.iend);
      atMost(c, v.iend, () => c.localGet(v.r1));
      c.localGet(v.a).localGet(v.ic).localGet(v.lda).i32Mul().i32Add()
        .localGet(v.pc).i32Const(4).i32Mul().i32Add();
      c.localGet(v.lda).localGet(v.iend).localGet(v.ic).i32Sub()
        .localGet(v.kcur).localGet(v.scratch).call(packA);
      c.i32Const(0).localSet(v.j0);
      whileTrue(c, () => c.localGet(v.j0).localGet(v.n).i32LtS(), () => {
        c.localGet(v.n).localGet(v.j0).i32Sub().localSet(v.nr);
        atMost(c, v.nr, () => c.i32Const(NR));
        c.localGet(v.packed).localGet(v.j0).localGet(v.lda).i32Mul().i32Add()
          .localGet(v.pc).i32Const(4 * NR).i32Mul().i32Add().localSet(v.bAddr);
        c.localGet(v.ic).localSet(v.ir);
        c.localGet(v.scratch).localSet(v.aAddr);
        whileTrue(c, () => c.localGet(v.ir).localGet(v.iend).i32LtS(), () => {
          c.localGet(v.iend).localGet(v.ir).i32Sub().localSet(v.mr);
          atMost(c, v.mr, () => c.i32Const(MR));
          const call = (kernel: number) => {
            c.localGet(v.aAddr).localGet(v.kcur).i32Const(4).i32Mul()
              .localGet(v.bAddr);
            c.localGet(v.c).localGet(v.ir).localGet(v.ldc).i32Mul().i32Add()
              .localGet(v.j0).i32Const(4).i32Mul().i32Add();
            c.localGet(v.ldc).localGet(v.kcur).localGet(v.nr)
              .localGet(v.accumulate).call(kernel);
          };
          // Full strips first; then one branch per short strip height.
          for (let mr = MR; mr > 1; mr--) {
            c.localGet(v.mr).i32Const(mr).i32Eq().if();
            call(kernels[mr - 1]);
            c.else();
          }
          call(kernels[0]);
          for (let mr = MR; mr > 1; mr--) c.end();
          c.localGet(v.aAddr).localGet(v.kcur).i32Const(4 * MR).i32Mul()
            .i32Add().localSet(v.aAddr);
          addTo(c, v.ir, MR);
        });
        addTo(c, v.j0, NR);
      });
      c.localGet(v.ic).localGet(v.mc).i32Add().localSet(v.ic);
    });
    c.localGet(v.pc).localGet(v.kc).i32Add().localTee(v.pc);
    c.localGet(v.k).i32LtS().brIf(0);
    c.end();
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

// local = min(local, bound), signed; bound pushes one pure i32.
function atMost(c: Instructions, local: number, bound: () => void): void {
  c.localGet(local);
  bound();
  c.localGet(local);
  bound();
  c.i32LtS().select().localSet(local);
}

function i32s<N extends string>(...names: N[]): Record<N, "i32"> {
  return Object.fromEntries(names.map((n) => [n, "i32"])) as Record<N, "i32">;
}

function addTo(c: Instructions, local: number, delta: number): void {
  c.localGet(local).i32Const(delta).i32Add().localSet(local);
}

function forEachLane(
  rows: readonly number[],
  f: (r: number, h: number, lane: number, col: number) => void,
): void {
  for (const r of rows) {
    for (let col = 0; col < NR; col++) f(r, col >> 2, col & 3, col);
  }
}
