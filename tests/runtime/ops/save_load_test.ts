// The tensor file ops as programs: `load` of either format (the first bytes
// decide), `save` in Paddle's format unless the path ends in `.npy`,
// `save_combine` → `load_combine` round trips, the float16 and seek
// attributes, Paddle's attribute sets, and files that are wrong.

import { create } from "@bufbuild/protobuf";
import { assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import {
  AttrType,
  type DType,
  encodeNpy,
  Executor,
  load,
  loadCombine,
  type OpDesc_Attr,
  print,
  Program,
  ProgramError,
  save,
  saveCombine,
  Tensor,
  type Variable,
  VarType_Type,
} from "../../../mod.ts";
import { ProgramDescSchema } from "../../../gen/rill/v1/framework_pb.ts";
import {
  readPaddleTensor,
  writePaddleTensor,
  writePaddleTensors,
} from "../../../runtime/format/paddle_tensor.ts";
import { Panic } from "../../../scheduler/mod.ts";
import { runForTensors, runProgram } from "../../_helpers/run_program.ts";
import { withTempDir } from "../../_helpers/with_temp_dir.ts";

const W = Tensor.fromArray([[0.5, -1], [2, 3.25]], "float32");
const IDS = Tensor.fromArray([2n ** 62n + 1n, -3n], "int64");

function rawBytes(t: Tensor): Uint8Array {
  return new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
}

function assertSameTensor(got: Tensor, want: Tensor, what = ""): void {
  assertEquals([got.dtype, got.shape], [want.dtype, want.shape], what);
  assertEquals(rawBytes(got), rawBytes(want), what);
}

/** Declares a block-0 variable `name` of `dtype`, to feed. */
function fed(program: Program, name: string, dtype: DType): Variable {
  return program.globalBlock.createVar({ name, dtype });
}

async function panicOf(program: Program): Promise<Panic> {
  return await assertRejects(() => new Executor().run(program), Panic);
}

// ---- load --------------------------------------------------------------------

Deno.test("load() reads a Paddle tensor file with LoD through a program", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/fc_0.w_0`, writePaddleTensor(W, [[0n, 2n]]));
    const { lines, tensors: [w] } = await runForTensors(() => {
      const w = load(`${dir}/fc_0.w_0`);
      print(w);
      return [w];
    });
    assertEquals(lines, ["[[0.5, -1], [2, 3.25]]"]);
    assertSameTensor(w, W);
  });
});

Deno.test("load() tells the formats apart by the first bytes, not the name", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/paddle.npy`, writePaddleTensor(IDS));
    await Deno.writeFile(`${dir}/numpy.pdtensor`, encodeNpy(W));
    const { tensors: [ids, w] } = await runForTensors(() => [
      load(`${dir}/paddle.npy`),
      load(`${dir}/numpy.pdtensor`),
    ]);
    assertSameTensor(ids, IDS);
    assertSameTensor(w, W);
  });
});

Deno.test("load() with seek and shape reads part of the data, as Paddle's", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/w`, writePaddleTensor(W));
    const { tensors: [part] } = await runForTensors(() =>
      load(`${dir}/w`, { seek: 1, shape: [2, 1] })
    );
    assertEquals([part.shape, part.toNested()], [[2, 1], [[-1], [2]]]);
    const program = new Program();
    program.guard(() => load(`${dir}/w`, { seek: 3, shape: [2] }));
    const panic = await panicOf(program);
    assertStringIncludes(panic.message, `${dir}/w`);
  });
});

Deno.test("load() of a truncated or oversized Paddle file panics naming the path", async () => {
  await withTempDir(async (dir) => {
    const bytes = writePaddleTensor(W);
    await Deno.writeFile(`${dir}/short`, bytes.subarray(0, bytes.length - 1));
    await Deno.writeFile(`${dir}/long`, new Uint8Array([...bytes, 0]));
    for (const name of ["short", "long"]) {
      const program = new Program();
      program.guard(() => load(`${dir}/${name}`));
      const panic = await panicOf(program);
      assertStringIncludes(panic.message, `${dir}/${name}`);
      assertEquals(panic.where, "block 0 op 0 load");
    }
  });
});

Deno.test("load() of a file of neither format panics at the op", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/notes.txt`, "not a tensor");
    const program = new Program();
    program.guard(() => load(`${dir}/notes.txt`));
    const panic = await panicOf(program);
    assertStringIncludes(panic.message, "neither a .npy file");
    assertEquals(panic.where, "block 0 op 0 load");
  });
});

// ---- save ----------------------------------------------------------------

Deno.test("save() writes Paddle's format unless the path ends in .npy", async () => {
  await withTempDir(async (dir) => {
    const program = new Program();
    program.guard(() => {
      const w = fed(program, "w", "float32");
      for (const name of ["fc_0.w_0", "w.pdparams", "w.npy", "W.NPY"]) {
        save(w, `${dir}/${name}`);
      }
    });
    await new Executor().run(program, { feeds: { w: W } });
    const file = (name: string) => Deno.readFile(`${dir}/${name}`);
    assertEquals(await file("fc_0.w_0"), writePaddleTensor(W));
    assertEquals(await file("w.pdparams"), writePaddleTensor(W));
    assertEquals(await file("w.npy"), encodeNpy(W));
    assertEquals(await file("W.NPY"), encodeNpy(W));
  });
});

const DTYPE_VALUES: Readonly<Record<DType, Tensor>> = {
  bool: Tensor.fromArray([[true, false], [false, true]], "bool"),
  int8: Tensor.fromArray([-128, 127], "int8"),
  uint8: Tensor.fromArray([0, 255], "uint8"),
  int16: Tensor.fromArray([-32768, 32767], "int16"),
  int32: Tensor.fromArray([-(2 ** 31), 2 ** 31 - 1], "int32"),
  int64: Tensor.fromArray([-(2n ** 63n)], "int64", []),
  float16: Tensor.fromArray([0.5, -0, 65504, NaN], "float16", [2, 2]),
  float32: Tensor.fromArray([], "float32", [0, 3]),
  float64: Tensor.fromArray([0.1, -Infinity, 5e-324], "float64"),
};

Deno.test("save() then load() round-trips every dtype byte for byte", async () => {
  await withTempDir(async (dir) => {
    const program = new Program();
    const loaded = program.guard(() =>
      Object.keys(DTYPE_VALUES).map((dtype) => {
        const x = fed(program, `x_${dtype}`, dtype as DType);
        save(x, `${dir}/${dtype}`);
        return load(`${dir}/${dtype}`);
      })
    );
    const { fetched } = await new Executor().run(program, {
      feeds: Object.fromEntries(
        Object.entries(DTYPE_VALUES).map(([d, t]) => [`x_${d}`, t]),
      ),
      fetch: loaded.map((v) => v.name),
    });
    for (const [i, [dtype, want]] of Object.entries(DTYPE_VALUES).entries()) {
      assertSameTensor(fetched[loaded[i].name] as Tensor, want, dtype);
      assertEquals(
        await Deno.readFile(`${dir}/${dtype}`),
        writePaddleTensor(want),
        dtype,
      );
    }
  });
});

Deno.test("save() with save_as_fp16 writes float16; load() with load_as_fp16 reads it", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/w32`, writePaddleTensor(W));
    const { tensors: [half] } = await runForTensors(() => {
      const w = load(`${dir}/w32`);
      save(w, `${dir}/w16`, { saveAsFp16: true });
      return [load(`${dir}/w32`, { loadAsFp16: true })];
    });
    assertEquals([half.dtype, half.toNested()], ["float16", W.toNested()]);
    const saved = readPaddleTensor(await Deno.readFile(`${dir}/w16`)).tensor;
    assertEquals([saved.dtype, saved.toNested()], ["float16", W.toNested()]);
  });
});

Deno.test("save() with overwrite false panics on an existing file", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/w`, writePaddleTensor(W));
    const program = new Program();
    program.guard(() =>
      save(load(`${dir}/w`), `${dir}/w`, { overwrite: false })
    );
    const panic = await panicOf(program);
    assertStringIncludes(panic.message, "already exists");
    assertEquals(panic.where, "block 0 op 1 save");
  });
});

// ---- save_combine and load_combine ---------------------------------------

Deno.test("save_combine then load_combine round-trips through a program", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/__params__`;
    const wants = Object.values(DTYPE_VALUES);
    const program = new Program();
    const loaded = program.guard(() => {
      const xs = wants.map((t, i) => fed(program, `x${i}`, t.dtype));
      saveCombine(xs, path);
      return loadCombine(path, wants.length);
    });
    const { fetched } = await new Executor().run(program, {
      feeds: Object.fromEntries(wants.map((t, i) => [`x${i}`, t])),
      fetch: loaded.map((v) => v.name),
    });
    wants.forEach((want, i) => {
      assertSameTensor(fetched[loaded[i].name] as Tensor, want, want.dtype);
    });
    assertEquals(await Deno.readFile(path), writePaddleTensors(wants));
  });
});

Deno.test("load_combine reads a combined file with LoD into the given variables", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/model.pdiparams`;
    await Deno.writeFile(
      path,
      writePaddleTensors([{ tensor: IDS, lod: [[0n, 1n, 2n]] }, W]),
    );
    const { tensors: [ids, w] } = await runForTensors(() => {
      const [a, b] = loadCombine(path, 2);
      return loadCombine(path, [b, a]); // into b, a: ids, w
    });
    assertSameTensor(ids, IDS);
    assertSameTensor(w, W);
  });
});

Deno.test("load_combine and save_combine convert to float16 when asked", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/p`, writePaddleTensors([W, IDS]));
    const { tensors: [w, ids] } = await runForTensors(() => {
      const vars = loadCombine(`${dir}/p`, 2, { loadAsFp16: true });
      saveCombine(vars, `${dir}/q`, { saveAsFp16: true });
      return vars;
    });
    assertEquals([w.dtype, ids.dtype], ["float16", "float16"]);
    assertEquals(await Deno.readFile(`${dir}/q`), writePaddleTensors([w, ids]));
  });
});

Deno.test("load_combine panics when the file holds too few or too many tensors", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/p`, writePaddleTensors([W, IDS]));
    for (
      const [count, detail] of [[3, "missing"], [1, "bytes left"]] as const
    ) {
      const program = new Program();
      const vars = program.guard(() => loadCombine(`${dir}/p`, count));
      const panic = await panicOf(program);
      assertStringIncludes(panic.message, `${dir}/p`);
      assertStringIncludes(panic.message, detail);
      if (count === 3) assertStringIncludes(panic.message, `"${vars[2].name}"`);
      assertEquals(panic.where, "block 0 op 0 load_combine");
    }
  });
});

Deno.test("load_combine of a .npy file panics naming the format", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/w.npy`, encodeNpy(W));
    const program = new Program();
    program.guard(() => loadCombine(`${dir}/w.npy`, 1));
    const panic = await panicOf(program);
    assertStringIncludes(panic.message, "is a .npy file");
  });
});

// ---- Programs as Paddle saves them ---------------------------------------

type AttrInit = Partial<Omit<OpDesc_Attr, "$typeName" | "$unknown">>;

const PADDLE_BOOKKEEPING: AttrInit[] = [
  { name: "op_role", type: AttrType.INT, i: 0 },
  { name: "op_callstack", type: AttrType.STRINGS, strings: ["File x.py"] },
];

/** A block-0 program of `ops`, declaring w (FP32 [2, 2]) and ids (INT64). */
function paddleProgram(
  ops: { type: string; slot: "X" | "Out"; args: string[]; attrs: AttrInit[] }[],
) {
  const tensorVar = (name: string, dataType: VarType_Type) => ({
    name,
    persistable: true,
    type: {
      type: VarType_Type.LOD_TENSOR,
      lodTensor: { tensor: { dataType, dims: [-1n] } },
    },
  });
  return create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      vars: [
        tensorVar("w", VarType_Type.FP32),
        tensorVar("ids", VarType_Type.INT64),
      ],
      ops: ops.map(({ type, slot, args, attrs }) => ({
        type,
        [slot === "X" ? "inputs" : "outputs"]: [{
          parameter: slot,
          arguments: args,
        }],
        attrs: [...attrs, ...PADDLE_BOOKKEEPING],
      })),
    }],
  });
}

const pathAttr = (s: string): AttrInit => ({
  name: "file_path",
  type: AttrType.STRING,
  s,
});
const boolAttr = (name: string, b: boolean): AttrInit => ({
  name,
  type: AttrType.BOOLEAN,
  b,
});

Deno.test("save, load, save_combine and load_combine run with Paddle's attribute sets", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/__params__`, writePaddleTensors([IDS, W]));
    const desc = paddleProgram([
      {
        type: "load_combine",
        slot: "Out",
        args: ["ids", "w"],
        attrs: [
          pathAttr(`${dir}/__params__`),
          boolAttr("load_as_fp16", false),
          boolAttr("model_from_memory", false),
        ],
      },
      {
        type: "save",
        slot: "X",
        args: ["w"],
        attrs: [
          pathAttr(`${dir}/w`),
          boolAttr("overwrite", true),
          boolAttr("save_as_fp16", false),
        ],
      },
      {
        type: "load",
        slot: "Out",
        args: ["w"],
        attrs: [
          pathAttr(`${dir}/w`),
          boolAttr("load_as_fp16", false),
          { name: "seek", type: AttrType.LONG, l: -1n },
          { name: "shape", type: AttrType.LONGS, longs: [] },
        ],
      },
      {
        type: "save_combine",
        slot: "X",
        args: ["ids", "w"],
        attrs: [
          pathAttr(`${dir}/copy`),
          boolAttr("overwrite", true),
          boolAttr("save_as_fp16", false),
          boolAttr("save_to_memory", false),
        ],
      },
    ]);
    const { fetched } = await runProgram(desc, { fetch: ["w", "ids"] });
    assertSameTensor(fetched.w as Tensor, W);
    assertSameTensor(fetched.ids as Tensor, IDS);
    assertEquals(
      await Deno.readFile(`${dir}/copy`),
      await Deno.readFile(`${dir}/__params__`),
    );
  });
});

Deno.test("validate() rejects in-memory models and a seek below -1", async () => {
  const programs = [
    paddleProgram([{
      type: "load_combine",
      slot: "Out",
      args: ["w"],
      attrs: [pathAttr("p"), boolAttr("model_from_memory", true)],
    }]),
    paddleProgram([{
      type: "save_combine",
      slot: "X",
      args: ["w"],
      attrs: [pathAttr("p"), boolAttr("save_to_memory", true)],
    }]),
    paddleProgram([{
      type: "load",
      slot: "Out",
      args: ["w"],
      attrs: [pathAttr("p"), { name: "seek", type: AttrType.LONG, l: -2n }],
    }]),
  ];
  for (const desc of programs) {
    const error: ProgramError = await assertRejects(
      () => new Executor().run(desc),
      ProgramError,
    );
    assertEquals(
      error.where.opType,
      desc.blocks[0].ops[0].type,
    );
  }
});
