// Real PIR programs saved by PaddlePaddle 3 (`inference.json` and other
// `.json` files under ../shared/paddle-models-pir, whose README says what
// each holds), read through Rill:
//
// - every program decodes, and its parameter ops agree with its
//   `.pdiparams` record by record in name order (dtype and dims);
// - every program converts, or is refused with one PirUnsupportedError
//   naming exactly the ops the PIR op table lacks (so a program runs as
//   soon as its ops are in the table, without editing this file);
// - every program with inputs and expected outputs runs on
//   RILL_TEST_DEVICE and passes when each output has the expected dtype
//   and shape and |out − expected| ≤ 1e-5 · max|expected| (integers:
//   equal).
//
// A case is a prefix C of `.npy` files beside the program: the program
// `S.json` owns the prefixes that begin `S.`, `inference.json` any other.
// Feeds read `C.npy` (one feed) or `C.<feed>.npy`; fetches compare with
// `C.expected.npy` (one fetch) or `C.<fetch>.expected.npy`.

import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import {
  decodeNpy,
  decodePirProgram,
  Executor,
  feedTargets,
  fetchTargets,
  type PirBlock,
  type PirOp,
  pirOpRule,
  type PirProgram,
  PirUnsupportedError,
  Program,
  type ProgramDesc,
  readPaddleTensors,
  readProgramFile,
  type Tensor,
  validateProgram,
} from "../../../mod.ts";
import {
  PADDLE_MODELS_PIR,
  PADDLE_MODELS_PIR_SKIPPED,
} from "../../_helpers/paddle_models.ts";
import { tensorOf } from "../../_helpers/run_program.ts";
import { TEST_DEVICE } from "../../_helpers/test_device.ts";

/** The pass rule's bound, relative to the expected output's largest value. */
const TOLERANCE = 1e-5;

/** The dtype each element type tag holds. */
const DTYPE_OF: Readonly<Record<string, string>> = {
  "0.t_f32": "float32",
  "0.t_f64": "float64",
  "0.t_i32": "int32",
  "0.t_i64": "int64",
  "0.t_bool": "bool",
  "0.t_ui8": "uint8",
};

/** One program file, decoded before any test runs. */
interface PirCase {
  readonly name: string;
  readonly dir: string;
  readonly file: string;
  readonly pir: PirProgram;
}

async function pirCases(): Promise<PirCase[]> {
  const cases: PirCase[] = [];
  for await (const folder of Deno.readDir(PADDLE_MODELS_PIR)) {
    if (!folder.isDirectory) continue;
    const dir = `${PADDLE_MODELS_PIR}/${folder.name}`;
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.name.endsWith(".json")) continue;
      const file = `${dir}/${entry.name}`;
      const pir = decodePirProgram(await Deno.readTextFile(file), file);
      cases.push({ name: `${folder.name}/${entry.name}`, dir, file, pir });
    }
  }
  return cases.sort((x, y) => x.name < y.name ? -1 : 1);
}

function allOps(block: PirBlock): PirOp[] {
  return block.ops.flatMap((op) => [
    op,
    ...op.regions.flatMap((r) => r.blocks.flatMap(allOps)),
  ]);
}

// The op names the table lacks, in order of first use.
function missingOps(pir: PirProgram): string[] {
  return [
    ...new Set(
      allOps(pir.top).map((op) => op.name).filter((n) =>
        pirOpRule(n) === undefined
      ),
    ),
  ];
}

// The parameters file beside a program: `S.pdiparams`.
function paramsFile(c: PirCase): string {
  return c.file.replace(/\.json$/, ".pdiparams");
}

async function checkParameters(c: PirCase): Promise<void> {
  const params = allOps(c.pir.top).filter((op) => op.parameter !== undefined)
    .sort((x, y) => x.parameter!.name < y.parameter!.name ? -1 : 1);
  const bytes = await Deno.readFile(paramsFile(c)).catch(() => undefined);
  if (bytes === undefined) {
    assertEquals(params.length, 0, `${c.name} has p ops and no .pdiparams`);
    return;
  }
  const records = readPaddleTensors(bytes);
  assertEquals(records.length, params.length);
  params.forEach((op, i) => {
    const type = op.results[0].type;
    if (type.kind !== "dense") {
      throw new Error(`${op.parameter!.name}: ${type.kind}`);
    }
    const t = records[i].tensor;
    assertEquals(
      [t.dtype, t.shape],
      [DTYPE_OF[type.element], [...type.dims]],
      op.parameter!.name,
    );
  });
}

/** The prefixes of the `.npy` cases a program owns. */
async function casePrefixes(c: PirCase): Promise<string[]> {
  const stem = c.file.slice(c.dir.length + 1, -".json".length);
  const fetches = allOps(c.pir.top).filter((op) => op.name === "1.fetch")
    .map((op) => {
      const name = op.attrs.find((x) => x.name === "name")?.value;
      return name?.kind === "str" ? name.value : "";
    });
  const prefixes = new Set<string>();
  for await (const entry of Deno.readDir(c.dir)) {
    if (!entry.name.endsWith(".expected.npy")) continue;
    let prefix = entry.name.slice(0, -".expected.npy".length);
    if (fetches.length > 1) {
      const f = fetches.find((f) => prefix.endsWith(`.${f}`));
      if (f === undefined) continue;
      prefix = prefix.slice(0, -f.length - 1);
    }
    const owned = prefix.startsWith(`${stem}.`) ||
      (stem === "inference" && !prefix.includes("."));
    if (owned) prefixes.add(prefix);
  }
  return [...prefixes].sort();
}

async function npy(path: string): Promise<Tensor> {
  return decodeNpy(await Deno.readFile(path));
}

/** max|got − want| / max|want|, after checking dtype and shape. */
function errorRatio(got: Tensor, want: Tensor): number {
  assertEquals([got.dtype, got.shape], [want.dtype, want.shape]);
  if (!want.dtype.startsWith("float")) {
    assertEquals(got.toNested(), want.toNested());
    return 0;
  }
  let scale = 0;
  let worst = 0;
  for (let i = 0; i < want.data.length; i++) {
    const w = Number(want.data[i]);
    scale = Math.max(scale, Math.abs(w));
    const d = Math.abs(Number(got.data[i]) - w);
    worst = Number.isNaN(d) ? Infinity : Math.max(worst, d);
  }
  return scale === 0 ? worst : worst / scale;
}

async function runCase(
  c: PirCase,
  prefix: string,
  desc: ProgramDesc,
): Promise<void> {
  const feeds = feedTargets(desc).map((t) => t.name);
  const fetches = fetchTargets(desc);
  const given: Record<string, Tensor> = {};
  for (const f of feeds) {
    given[f] = await npy(
      `${c.dir}/${prefix}${feeds.length === 1 ? "" : `.${f}`}.npy`,
    );
  }
  const program = await Program.load(
    c.file.endsWith("/inference.json") ? c.dir : c.file,
  );
  const { fetched } = await new Executor({ device: TEST_DEVICE }).run(program, {
    feeds: given,
    fetch: fetches,
  });
  for (const f of fetches) {
    const want = await npy(
      `${c.dir}/${prefix}${fetches.length === 1 ? "" : `.${f}`}.expected.npy`,
    );
    const ratio = errorRatio(tensorOf(fetched[f]), want);
    assert(
      ratio <= TOLERANCE,
      `${c.name} ${prefix}: "${f}" differs from the expected output by ` +
        `${ratio} × its largest value (at most ${TOLERANCE})`,
    );
  }
}

if (PADDLE_MODELS_PIR_SKIPPED !== undefined) {
  Deno.test({
    name: `paddle PIR models: skipped, ${PADDLE_MODELS_PIR_SKIPPED}`,
    ignore: true,
    fn() {},
  });
} else if (
  !(await Deno.stat(PADDLE_MODELS_PIR).catch(() => undefined))?.isDirectory
) {
  Deno.test("paddle PIR models: CI must run them, but the folder is absent", () => {
    throw new Error(`${PADDLE_MODELS_PIR} is absent`);
  });
} else {
  const cases = await pirCases();

  Deno.test("paddle PIR models: the folder holds programs", () => {
    assert(cases.length > 0, `${PADDLE_MODELS_PIR} holds no .json program`);
  });

  for (const c of cases) {
    Deno.test(`paddle PIR model ${c.name}: its p ops match its .pdiparams in name order`, () =>
      checkParameters(c));

    const missing = missingOps(c.pir);
    if (missing.length > 0) {
      Deno.test(`paddle PIR model ${c.name}: refused, naming the ${missing.length} ops the table lacks`, async () => {
        const e: unknown = await readProgramFile(c.file).catch((e) => e);
        assertInstanceOf(e, PirUnsupportedError);
        const refused = e as PirUnsupportedError;
        assertEquals(refused.message.includes("\n"), false);
        const ops = refused.gaps.filter((g) =>
          g.kind === "op" && pirOpRule(g.name) === undefined &&
          !g.name.includes(" ")
        );
        assertEquals(ops.map((g) => g.name), missing);
      });
      continue;
    }
    Deno.test(`paddle PIR model ${c.name}: converts and validates`, async () => {
      validateProgram(await readProgramFile(c.file));
    });
    for (const prefix of await casePrefixes(c)) {
      Deno.test(
        `paddle PIR model ${c.name} ${prefix} on ${TEST_DEVICE} matches its expected output within 1e-5 × max|expected|`,
        async () => runCase(c, prefix, await readProgramFile(c.file)),
      );
    }
  }
}
