// Real models saved by PaddlePaddle (1.x and 2.0–2.6), run through Rill:
// every folder of ../shared/paddle-models (tests/_helpers/paddle_models.ts)
// is a model directory with an input and its expected output, computed in
// float64 by an independent NumPy implementation. A run passes when each
// fetch target has the expected shape and |out − expected| ≤ 1e-5 ·
// max|expected| everywhere. Runs use RILL_TEST_DEVICE (the CPU, or WebGPU).
//
// A model that uses ops Rill lacks is an expected failure: its test names
// the missing ops (from the op table, so a model runs as soon as its ops
// exist, without editing this file) and checks that validation refuses it
// naming exactly those.
//
// A folder's files are found by name: the feed `x` reads `x.npy`, or, for
// a model with one feed, the folder's one `.npy` input; the fetch target
// reads `NAME.expected.npy`, or, with several targets, the target at
// column k reads `NAME.out<k>.expected.npy`.

import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import {
  BlockLayout,
  decodeNpy,
  Executor,
  feedTargets,
  fetchTargets,
  OPS,
  Program,
  type ProgramDesc,
  ProgramError,
  Scope,
  Tensor,
  type TensorArray,
  UnknownOpsError,
  validateProgram,
} from "../../../mod.ts";
import { judgeExtraAttr } from "../../../runtime/core/judge_extra_attr.ts";
import { findModelFiles } from "../../../runtime/format/model_dir.ts";
import { bindRunInputs } from "../../../runtime/run/feed_binding.ts";
import { readProgramFile } from "../../../runtime/format/program_file.ts";
import {
  PADDLE_MODELS,
  PADDLE_MODELS_SKIPPED,
} from "../../_helpers/paddle_models.ts";
import { tensorOf } from "../../_helpers/run_program.ts";
import { TEST_DEVICE } from "../../_helpers/test_device.ts";

/** The pass rule's bound, relative to the expected output's largest value. */
const TOLERANCE = 1e-5;

/** One model folder, read before any test runs. */
interface ModelCase {
  readonly name: string;
  readonly dir: string;
  readonly desc: ProgramDesc;
  /** The op types Rill lacks, with their counts, in order of first use. */
  readonly missing: readonly { type: string; count: number }[];
}

async function modelCases(): Promise<ModelCase[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(PADDLE_MODELS)) {
    if (entry.isDirectory) names.push(entry.name);
  }
  return await Promise.all(
    names.sort().map(async (name) => {
      const dir = `${PADDLE_MODELS}/${name}`;
      const desc = await readProgramFile((await findModelFiles(dir)).program);
      return { name, dir, desc, missing: missingOps(desc) };
    }),
  );
}

function missingOps(desc: ProgramDesc): { type: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const block of desc.blocks) {
    for (const op of block.ops) {
      if (!OPS.has(op.type)) {
        counts.set(op.type, (counts.get(op.type) ?? 0) + 1);
      }
    }
  }
  return [...counts].map(([type, count]) => ({ type, count }));
}

/** The feeds' and the expected outputs' files of a folder, by variable. */
async function caseFiles(
  model: ModelCase,
): Promise<{ feeds: Map<string, string>; expected: Map<string, string> }> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(model.dir)) {
    if (entry.name.endsWith(".npy")) files.push(entry.name);
  }
  const inputs = files.filter((f) => !f.endsWith(".expected.npy"));
  const outputs = files.filter((f) => f.endsWith(".expected.npy")).sort();
  const feeds = new Map<string, string>();
  const targets = feedTargets(model.desc).map((t) => t.name);
  for (const name of targets) {
    const file = inputs.includes(`${name}.npy`)
      ? `${name}.npy`
      : targets.length === 1 && inputs.length === 1
      ? inputs[0]
      : undefined;
    if (file === undefined) {
      throw new Error(`${model.name}: no input file for feed "${name}"`);
    }
    feeds.set(name, `${model.dir}/${file}`);
  }
  const fetched = fetchTargets(model.desc);
  const expected = new Map<string, string>();
  fetched.forEach((name, k) => {
    const file = fetched.length === 1 && outputs.length === 1
      ? outputs[0]
      : outputs.find((f) => f.endsWith(`.out${k}.expected.npy`));
    if (file === undefined) {
      throw new Error(`${model.name}: no expected file for fetch "${name}"`);
    }
    expected.set(name, `${model.dir}/${file}`);
  });
  return { feeds, expected };
}

async function npy(path: string): Promise<Tensor> {
  return decodeNpy(await Deno.readFile(path));
}

/** max|got − want| / max|want|, after checking dtype and shape. */
function errorRatio(got: Tensor, want: Tensor): number {
  assertEquals([got.dtype, got.shape], [want.dtype, want.shape]);
  let scale = 0;
  let worst = 0;
  for (let i = 0; i < want.data.length; i++) {
    const w = Number(want.data[i]);
    scale = Math.max(scale, Math.abs(w));
    const d = Math.abs(Number(got.data[i]) - w);
    worst = Number.isNaN(d) ? Infinity : Math.max(worst, d);
  }
  return worst / scale;
}

async function runModel(model: ModelCase): Promise<void> {
  const { feeds, expected } = await caseFiles(model);
  const program = await Program.load(model.dir);
  const given: Record<string, Tensor> = {};
  for (const [name, file] of feeds) given[name] = await npy(file);
  const { fetched } = await new Executor({ device: TEST_DEVICE }).run(program, {
    feeds: given,
    fetch: [...expected.keys()],
  });
  for (const [name, file] of expected) {
    const ratio = errorRatio(tensorOf(fetched[name]), await npy(file));
    assert(
      ratio <= TOLERANCE,
      `${model.name}: "${name}" differs from the expected output by ` +
        `${ratio} × its largest value (at most ${TOLERANCE})`,
    );
  }
}

// Validation refuses the model naming exactly the ops the table lacks.
function assertRefusedFor(model: ModelCase): void {
  let refused: unknown;
  try {
    validateProgram(model.desc);
  } catch (e) {
    refused = e;
  }
  if (refused instanceof UnknownOpsError) {
    assertEquals(
      refused.ops.map(({ type, count }) => ({ type, count })),
      model.missing,
    );
  } else {
    assertInstanceOf(refused, ProgramError);
    const { opType } = (refused as ProgramError).where;
    assertEquals(model.missing, [{ type: opType!, count: 1 }]);
  }
}

const absentInCi = PADDLE_MODELS_SKIPPED === undefined &&
  !(await Deno.stat(PADDLE_MODELS).catch(() => undefined))?.isDirectory;

if (PADDLE_MODELS_SKIPPED !== undefined) {
  Deno.test({
    name: `paddle models: skipped, ${PADDLE_MODELS_SKIPPED}`,
    ignore: true,
    fn() {},
  });
} else if (absentInCi) {
  Deno.test("paddle models: CI must run them, but the folder is absent", () => {
    throw new Error(`${PADDLE_MODELS} is absent`);
  });
} else {
  const models = await modelCases();

  Deno.test("paddle models: the folder holds models", () => {
    assert(models.length > 0, `${PADDLE_MODELS} holds no model folder`);
  });

  Deno.test("paddle models: every extra attribute they carry is neutral, on every op", () => {
    // An attribute the table does not cover is the op's own (a gap in the
    // op's schema shows as its validation error). On ops Rill lacks, the
    // names some ops declare as their own (data_format on conv2d) are the
    // op's business too.
    const refused: string[] = [];
    for (const model of models) {
      for (const block of model.desc.blocks) {
        for (const op of block.ops) {
          const def = OPS.get(op.type);
          for (const a of op.attrs) {
            if (def !== undefined && a.name in def.attrs) continue;
            const verdict = judgeExtraAttr(a);
            if (verdict.kind === "neutral" || verdict.kind === "not_extra") {
              continue;
            }
            if (def === undefined && verdict.rule.meaningfulOnSomeOps) continue;
            refused.push(
              `${model.name}: ${op.type}.${a.name}: ${verdict.kind}`,
            );
          }
        }
      }
    }
    assertEquals(refused, []);
  });

  const mnist = models.find((m) => m.name === "mnist_linear");
  Deno.test({
    name:
      "paddle model mnist_linear takes a feed of 1 row where it declares [16, 784] without need_check_feed",
    ignore: mnist === undefined,
    fn() {
      const desc = mnist!.desc;
      const scope = new Scope(new BlockLayout(desc.blocks[0]));
      const [feed] = feedTargets(desc);
      const row = Tensor.zeros([1, 784], "float32");
      bindRunInputs(desc, scope, { feeds: { [feed.name]: row } });
      assertEquals((scope.get(feed.list) as TensorArray).snapshot(), [row]);
    },
  });

  for (const model of models) {
    if (model.missing.length > 0) {
      const list = model.missing.map((m) => `${m.type} ×${m.count}`).join(", ");
      Deno.test(
        `paddle model ${model.name}: expected failure until Rill has ${list}`,
        () => assertRefusedFor(model),
      );
    } else {
      Deno.test(
        `paddle model ${model.name} on ${TEST_DEVICE} matches its expected output within 1e-5 × max|expected|`,
        () => runModel(model),
      );
    }
  }
}
