// The CLI on model directories, as real processes: runs that feed through
// feed ops and print the fetch targets, dump, --params, and bad input that
// stops before anything runs (exit 1, one error line) or a fetch of a
// variable never written (a panic at the end of the run, exit 2).

import { create, toBinary } from "@bufbuild/protobuf";
import { assertEquals, assertStringIncludes } from "@std/assert";
import {
  decodeNpy,
  encodeNpy,
  Tensor,
  writePaddleTensors,
} from "../../../mod.ts";
import {
  ProgramDescSchema,
  VarDescSchema,
} from "../../../gen/rill/v1/framework_pb.ts";
import { tensor } from "../../_helpers/desc_init.ts";
import {
  fcProgram,
  writeFcModel,
} from "../../_helpers/fluid_inference_model.ts";
import { pirAffineText } from "../../_helpers/pir_json.ts";
import { mapLimited, ROOT, runRill } from "../../_helpers/rill_process.ts";
import { withTempDir } from "../../_helpers/with_temp_dir.ts";
import {
  IGNORE_PADDLE_MODELS,
  PADDLE_MODELS,
} from "../../_helpers/paddle_models.ts";

const MLP = `${PADDLE_MODELS}/recognize_digits_mlp`;
const GATHER = `${PADDLE_MODELS}/gather_combined`;
const IMG = `img=${MLP}/input.npy`;
const GATHER_FEEDS = [
  "--feed",
  `input_data=${GATHER}/input_data.npy`,
  "--feed",
  `index_data=${GATHER}/index_data.npy`,
];

Deno.test({
  name:
    "the CLI runs model directories and prints their fetch targets when no --fetch is given",
  ignore: IGNORE_PADDLE_MODELS,
  fn: async () => {
    const [mlp, gather] = await mapLimited(
      [
        [MLP, "--feed", IMG],
        [GATHER, ...GATHER_FEEDS],
      ],
      2,
      runRill,
    );
    assertEquals([mlp.code, mlp.stderr], [0, ""]);
    assertEquals(mlp.stdout.split(" ", 1)[0], "fc_2.tmp_2");
    assertEquals(gather, {
      code: 0,
      stdout: "output_data [[3, 3.5, 4, 4.5]]\n",
      stderr: "",
    });
  },
});

Deno.test({
  name: "the CLI writes a fetch op's variable to a file with --fetch NAME=FILE",
  ignore: IGNORE_PADDLE_MODELS,
  fn: async () => {
    await withTempDir(async (dir) => {
      const out = `${dir}/probabilities.npy`;
      const r = await runRill([
        MLP,
        "--feed",
        IMG,
        "--fetch",
        `fc_2.tmp_2=${out}`,
      ]);
      assertEquals(r, { code: 0, stdout: "", stderr: "" });
      const got = decodeNpy(await Deno.readFile(out));
      assertEquals([got.dtype, got.shape], ["float32", [1, 10]]);
    });
  },
});

Deno.test({
  name: "the CLI dumps a model directory",
  ignore: IGNORE_PADDLE_MODELS,
  fn: async () => {
    const r = await runRill(["dump", GATHER]);
    assertEquals(r.code, 0);
    assertEquals(
      r.stdout.split("\n").filter((l) => l.includes(": feed(")),
      [
        "  op 0: feed(X=[feed]) -> Out=[index_data] {col=1}",
        "  op 1: feed(X=[feed]) -> Out=[input_data] {col=0}",
      ],
    );
  },
});

Deno.test({
  name:
    "the CLI refuses a model's missing or ill-fitting feeds with one error line, running nothing",
  ignore: IGNORE_PADDLE_MODELS,
  fn: async () => {
    await withTempDir(async (dir) => {
      const wide = `${dir}/wide.npy`;
      await Deno.writeFile(
        wide,
        encodeNpy(Tensor.zeros([1, 3, 28, 28], "float32")),
      );
      const indices = `${GATHER}/index_data.npy`;
      const cases: [string[], string][] = [
        [
          [GATHER, GATHER_FEEDS[0], GATHER_FEEDS[1]],
          `error: ${GATHER}/model.pdmodel: block 0 op 0 (feed): no feed given for "index_data"\n`,
        ],
        [
          // input_data says need_check_feed: its shape binds the feed.
          [GATHER, "--feed", `input_data=${wide}`, ...GATHER_FEEDS.slice(2)],
          `error: feed: variable "input_data" is declared float32 [4, 4], the feed is float32 [1, 3, 28, 28]\n`,
        ],
        [
          [
            GATHER,
            "--feed",
            `input_data=${indices}`,
            "--feed",
            `index_data=${indices}`,
          ],
          `error: feed: variable "input_data" is declared float32 [4, 4], the feed is int32 [1]\n`,
        ],
      ];
      const results = await mapLimited(cases, 3, ([args]) => runRill(args));
      results.forEach((r, i) => {
        assertEquals(
          r,
          { code: 1, stdout: "", stderr: cases[i][1] },
          cases[i][0].join(" "),
        );
      });
    });
  },
});

Deno.test("the CLI reads the parameters from --params", async () => {
  await withTempDir(async (dir) => {
    await writeFcModel(dir, "pdiparams");
    await Deno.rename(`${dir}/model.pdiparams`, `${dir}/weights`);
    const x = `${dir}/x.npy`;
    await Deno.writeFile(x, encodeNpy(Tensor.fromArray([[1, 1]], "float32")));
    const args = [dir, "--feed", `x=${x}`];
    const [without, given] = await mapLimited(
      [args, [...args, "--params", `${dir}/weights`]],
      2,
      runRill,
    );
    assertEquals(without.code, 1);
    assertEquals(
      without.stderr,
      `error: ${dir}/b: cannot read parameter "b": no such file\n`,
    );
    assertEquals(given, { code: 0, stdout: "y [[5.5, 6, 11]]\n", stderr: "" });
  });
});

Deno.test("the CLI refuses bad parameters and model directories with one error line, running nothing", async () => {
  await withTempDir(async (dir) => {
    await writeFcModel(dir, "separate");
    await Deno.writeFile(`${dir}/b`, new Uint8Array([0, 0, 0, 0, 1]));
    const wide = `${dir}/wide.npy`;
    await Deno.writeFile(
      wide,
      encodeNpy(Tensor.zeros([1, 3, 28, 28], "float32")),
    );
    const cases: [string[], string][] = [
      [
        [dir, "--feed", `x=${wide}`],
        `error: ${dir}/b: parameter "b": truncated at byte 4: lod_level needs 8 bytes, 1 remain\n`,
      ],
      [
        [ROOT],
        `error: ${ROOT}: no __model__, *.pdmodel or inference.json file in the model directory\n`,
      ],
    ];
    const results = await mapLimited(cases, 2, ([args]) => runRill(args));
    results.forEach((r, i) => {
      assertEquals(
        r,
        { code: 1, stdout: "", stderr: cases[i][1] },
        cases[i][0].join(" "),
      );
    });
  });
});

Deno.test("the CLI panics at the end of the run on a --fetch of a variable never written", async () => {
  await withTempDir(async (dir) => {
    const desc = fcProgram();
    desc.blocks[0].vars.push(create(VarDescSchema, tensor("unset", [1])));
    await writeFcModel(dir, "separate");
    await Deno.writeFile(`${dir}/__model__`, toBinary(ProgramDescSchema, desc));
    const x = `${dir}/x.npy`;
    await Deno.writeFile(x, encodeNpy(Tensor.fromArray([[1, 1]], "float32")));
    const r = await runRill([
      dir,
      "--feed",
      `x=${x}`,
      "--fetch",
      "y",
      "--fetch",
      "unset",
    ]);
    assertEquals(r, {
      code: 2,
      stdout: "",
      stderr: 'panic: fetch: variable "unset" was never written\n',
    });
  });
});

Deno.test("the CLI runs and dumps a PIR model directory, and refuses a bad one with one error line", async () => {
  await withTempDir(async (dir) => {
    const good = `${dir}/good`,
      missing = `${dir}/missing`,
      magic = `${dir}/magic`;
    for (const d of [good, missing, magic]) await Deno.mkdir(d);
    const w = Tensor.fromArray([10, 20], "float32");
    const b = Tensor.fromArray([1, 2], "float32");
    await Deno.writeTextFile(`${good}/inference.json`, pirAffineText());
    await Deno.writeFile(
      `${good}/inference.pdiparams`,
      writePaddleTensors([b, w]),
    );
    await Deno.writeTextFile(`${missing}/inference.json`, pirAffineText());
    await Deno.writeFile(
      `${missing}/inference.pdiparams`,
      writePaddleTensors([b]),
    );
    await Deno.writeTextFile(
      `${magic}/inference.json`,
      pirAffineText().replace('"magic":"pir"', '"magic":"mlir"'),
    );
    const x = `${dir}/x.npy`;
    await Deno.writeFile(x, encodeNpy(Tensor.fromArray([[0, 1]], "float32")));
    // A value used before it is defined: the second add reads %9.
    const early = `${dir}/early.json`;
    await Deno.writeTextFile(
      early,
      pirAffineText().replace('"I":[{"%":4},{"%":2}]', '"I":[{"%":9},{"%":2}]'),
    );
    const truncated = `${dir}/truncated.json`;
    await Deno.writeTextFile(truncated, pirAffineText().slice(0, 100));
    const [run, dump, noParam, badMagic, badValue, cut] = await mapLimited(
      [
        [good, "--feed", `x=${x}`],
        ["dump", good],
        [missing, "--feed", `x=${x}`],
        [magic, "--feed", `x=${x}`],
        [early],
        ["dump", truncated],
      ],
      2,
      runRill,
    );
    assertEquals(run, {
      code: 0,
      stdout: "fetch_name_0 [[11, 23]]\n",
      stderr: "",
    });
    assertEquals(dump.code, 0);
    assertEquals(
      dump.stdout.split("\n").filter((l) => l.includes(" op ")),
      [
        "  op 0: feed(X=[feed]) -> Out=[x] {col=0}",
        '  op 1: elementwise_add(X=[x], Y=[w]) -> Out=["%4"]',
        '  op 2: elementwise_add(X=["%4"], Y=[b]) -> Out=[fetch_name_0]',
        "  op 3: fetch(X=[fetch_name_0]) -> Out=[fetch] {col=0}",
      ],
    );
    assertEquals(noParam, {
      code: 1,
      stdout: "",
      stderr:
        `error: ${missing}/inference.pdiparams: parameter "w" (2 of 2 by name) is missing: the file ends after 1 tensors\n`,
    });
    assertEquals(badMagic, {
      code: 1,
      stdout: "",
      stderr:
        `error: ${magic}/inference.json: not a PIR program: magic is "mlir", not "pir"\n`,
    });
    assertEquals(badValue, {
      code: 1,
      stdout: "",
      stderr:
        `error: ${early}: block 0 op 4 (1.add): value %9 is used before it is defined\n`,
    });
    assertEquals([cut.code, cut.stdout], [1, ""]);
    assertStringIncludes(
      cut.stderr,
      `error: ${truncated}: not a PIR program: invalid JSON: `,
    );
    assertEquals(cut.stderr.split("\n").length, 2);
  });
});
