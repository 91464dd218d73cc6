// Model directories: finding the program, reading parameters one file per
// variable or combined, and every way the parameter files can be wrong.

import { assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import {
  Executor,
  Program,
  ProgramError,
  Tensor,
  writePaddleTensor,
  writePaddleTensors,
} from "../../../mod.ts";
import {
  findModelFiles,
  loadModel,
} from "../../../runtime/format/model_dir.ts";
import {
  B,
  type FcLayout,
  W,
  writeFcModel,
} from "../../_helpers/fluid_inference_model.ts";
import { pirAffineText } from "../../_helpers/pir_json.ts";
import { tensorOf } from "../../_helpers/run_program.ts";
import { withTempDir } from "../../_helpers/with_temp_dir.ts";

const X = Tensor.fromArray([[1, 1], [0, 1]], "float32");
const Y = [[5.5, 6, 11], [4.5, 4, 8]];

async function loadError(
  dir: string,
  params?: string,
): Promise<ProgramError> {
  return await assertRejects(() => loadModel(dir, { params }), ProgramError);
}

// ---- finding the files -------------------------------------------------------

for (const layout of ["separate", "__params__", "pdiparams"] as FcLayout[]) {
  Deno.test(`Program.load() runs a model directory with ${layout} parameters`, async () => {
    await withTempDir(async (dir) => {
      const program = await Program.load(await writeFcModel(dir, layout));
      assertEquals([...program.parameters.keys()].sort(), ["b", "w"]);
      const { fetched } = await new Executor().run(program, {
        feeds: { x: X },
        fetch: ["y"],
      });
      assertEquals(tensorOf(fetched.y).toNested(), Y);
    });
  });
}

Deno.test("loadModel() reads --params in place of the directory's own files", async () => {
  await withTempDir(async (dir) => {
    await writeFcModel(dir, "separate");
    const other = `${dir}/other.bin`;
    const w2 = Tensor.fromArray([[0, 0, 0], [0, 0, 0]], "float32");
    await Deno.writeFile(other, writePaddleTensors([B, w2]));
    const model = await loadModel(dir, { params: other });
    assertEquals(model.parameters.get("w")?.toNested(), w2.toNested());
    assertEquals(model.file, `${dir}/__model__`);
  });
});

Deno.test("loadModel() of a program file loads no parameters unless --params names them", async () => {
  await withTempDir(async (dir) => {
    await writeFcModel(dir, "__params__");
    const bare = await loadModel(`${dir}/__model__`);
    assertEquals(bare.parameters.size, 0);
    const given = await loadModel(`${dir}/__model__`, {
      params: `${dir}/__params__`,
    });
    assertEquals(given.parameters.get("b")?.toNested(), B.toNested());
  });
});

Deno.test("findModelFiles() pairs a .pdmodel with the .pdiparams of its name", async () => {
  await withTempDir(async (dir) => {
    for (const name of ["net.pdmodel", "net.pdiparams", "old.pdiparams"]) {
      await Deno.writeFile(`${dir}/${name}`, new Uint8Array());
    }
    assertEquals(await findModelFiles(dir), {
      program: `${dir}/net.pdmodel`,
      params: `${dir}/net.pdiparams`,
    });
  });
});

Deno.test("findModelFiles() refuses a directory with no program or with two", async () => {
  await withTempDir(async (dir) => {
    let e = await assertRejects(() => findModelFiles(dir), ProgramError);
    assertEquals(
      e.message,
      `${dir}: no __model__, *.pdmodel or inference.json file in the model directory`,
    );
    await Deno.writeFile(`${dir}/__model__`, new Uint8Array());
    await Deno.writeFile(`${dir}/a.pdmodel`, new Uint8Array());
    e = await assertRejects(() => findModelFiles(dir), ProgramError);
    assertEquals(e.where, { file: dir });
  });
});

// ---- bad parameter files -----------------------------------------------------

Deno.test("loadModel() names the file and variable of a missing parameter file", async () => {
  await withTempDir(async (dir) => {
    await writeFcModel(dir);
    await Deno.remove(`${dir}/w`);
    const e = await loadError(dir);
    assertEquals(e.where, { file: `${dir}/w`, variable: "w" });
    assertEquals(
      e.message,
      `${dir}/w: cannot read parameter "w": no such file`,
    );
  });
});

Deno.test("loadModel() refuses a truncated and an oversized parameter file", async () => {
  await withTempDir(async (dir) => {
    await writeFcModel(dir);
    const whole = writePaddleTensor(W);
    await Deno.writeFile(`${dir}/w`, whole.subarray(0, whole.length - 4));
    let e = await loadError(dir);
    assertEquals(e.where, { file: `${dir}/w`, variable: "w" });
    await Deno.writeFile(`${dir}/w`, new Uint8Array([...whole, 0, 0]));
    e = await loadError(dir);
    assertEquals(e.where, { file: `${dir}/w`, variable: "w" });
  });
});

Deno.test("loadModel() refuses a parameter whose dtype or dims differ from its VarDesc", async () => {
  await withTempDir(async (dir) => {
    await writeFcModel(dir);
    await Deno.writeFile(
      `${dir}/b`,
      writePaddleTensor(Tensor.fromArray([1, 2, 3], "float64")),
    );
    let e = await loadError(dir);
    assertEquals(
      e.message,
      `${dir}/b: parameter "b" is declared float32 [3], the file holds float64 [3]`,
    );
    await Deno.writeFile(
      `${dir}/b`,
      writePaddleTensor(Tensor.fromArray([[1, 2, 3]], "float32")),
    );
    e = await loadError(dir);
    assertEquals(e.where.variable, "b");
  });
});

Deno.test("loadModel() refuses a combined file with too few or too many tensors", async () => {
  await withTempDir(async (dir) => {
    await writeFcModel(dir, "__params__");
    const params = `${dir}/__params__`;
    await Deno.writeFile(params, writePaddleTensors([B]));
    let e = await loadError(dir);
    assertEquals(e.where, { file: params, variable: "w" });
    assertEquals(
      e.message,
      `${params}: parameter "w" (2 of 2 by name) is missing: the file ends after 1 tensors`,
    );
    await Deno.writeFile(params, writePaddleTensors([B, W, B]));
    e = await loadError(dir);
    assertEquals(e.where, { file: params });
    // Out of order: w's place holds b.
    await Deno.writeFile(params, writePaddleTensors([W, B]));
    e = await loadError(dir);
    assertEquals(e.where, { file: params, variable: "b" });
  });
});

Deno.test("loadModel() refuses a .npy given as the combined file", async () => {
  await withTempDir(async (dir) => {
    await writeFcModel(dir, "separate");
    const npy = `${dir}/w.npy`;
    await Deno.writeFile(npy, new Uint8Array([0x93, 78, 85, 77, 80, 89, 1, 0]));
    const e = await loadError(dir, npy);
    assertEquals(e.where, { file: npy });
  });
});

// ---- PIR programs (Paddle 3) ------------------------------------------------

const PIR_W = Tensor.fromArray([10, 20], "float32");
const PIR_B = Tensor.fromArray([1, 2], "float32");

// An inference.json beside the .pdiparams holding `records`.
async function writePirModel(dir: string, records: Tensor[]): Promise<void> {
  await Deno.writeTextFile(`${dir}/inference.json`, pirAffineText());
  await Deno.writeFile(
    `${dir}/inference.pdiparams`,
    writePaddleTensors(records),
  );
}

Deno.test("Program.load() runs a PIR model directory, its parameters read in name order", async () => {
  await withTempDir(async (dir) => {
    await writePirModel(dir, [PIR_B, PIR_W]);
    assertEquals(await findModelFiles(dir), {
      program: `${dir}/inference.json`,
      params: `${dir}/inference.pdiparams`,
    });
    const program = await Program.load(dir);
    const { fetched } = await new Executor().run(program, {
      feeds: { x: Tensor.fromArray([[0, 1]], "float32") },
      fetch: ["fetch_name_0"],
    });
    assertEquals(tensorOf(fetched.fetch_name_0).toNested(), [[11, 23]]);
  });
});

Deno.test("loadModel() names a parameter missing from a PIR model's .pdiparams", async () => {
  await withTempDir(async (dir) => {
    await writePirModel(dir, [PIR_B]);
    const e = await loadError(dir);
    assertEquals(e.where, {
      file: `${dir}/inference.pdiparams`,
      variable: "w",
    });
    assertEquals(
      e.message,
      `${dir}/inference.pdiparams: parameter "w" (2 of 2 by name) is missing: the file ends after 1 tensors`,
    );
  });
});

Deno.test("loadModel() refuses a PIR model's .pdiparams with a record more than its p ops", async () => {
  await withTempDir(async (dir) => {
    await writePirModel(dir, [PIR_B, PIR_W, PIR_W]);
    const e = await loadError(dir);
    assertEquals(e.where, { file: `${dir}/inference.pdiparams` });
    assertStringIncludes(
      e.message,
      "more than the 2 parameters the program declares",
    );
  });
});

Deno.test("loadModel() checks each PIR parameter against its p op's dtype and shape", async () => {
  await withTempDir(async (dir) => {
    await writePirModel(dir, [Tensor.fromArray([1, 2], "float64"), PIR_W]);
    const e = await loadError(dir);
    assertEquals(e.where.variable, "b");
    assertStringIncludes(e.message, 'parameter "b" is declared');
  });
});
