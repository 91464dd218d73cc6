import { assertEquals, assertStringIncludes } from "@std/assert";
import { create, toBinary } from "@bufbuild/protobuf";
import { join } from "@std/path";
import { ProgramDescSchema } from "../../../gen/rill/v1/framework_pb.ts";
import { runRill } from "../../_helpers/rill_process.ts";
import { withTempDir } from "../../_helpers/with_temp_dir.ts";
import { op, tensor } from "../../_helpers/desc_init.ts";
import {
  IGNORE_PADDLE_MODELS,
  PADDLE_MODELS,
} from "../../_helpers/paddle_models.ts";
import { ignoreGpu } from "../../kernels/webgpu/_gpu.ts";
import { cli } from "../../_helpers/cli_output.ts";

Deno.test("ops prints a model directory's op table: each op type, its count, cpu and wgsl", async () => {
  const r = await runRill(["ops", "examples/mlp_model"]);
  assertEquals(r, {
    code: 0,
    stdout: [
      "op               count  cpu   wgsl",
      "elementwise_add      2  yes   yes",
      "feed                 1  host  host",
      "fetch                1  host  host",
      "mul                  2  yes   yes",
      "softmax              1  yes   yes",
      "tanh                 1  yes   yes",
      "",
    ].join("\n"),
    stderr: "",
  });
});

Deno.test("ops lists an op unknown to Rill as missing and exits 1 with one error line", async () => {
  await withTempDir(async (dir) => {
    const file = join(dir, "unknown.pb");
    const relu = op("relu", { X: ["x"] }, { Out: ["x"] });
    await Deno.writeFile(
      file,
      toBinary(
        ProgramDescSchema,
        create(ProgramDescSchema, {
          blocks: [{
            idx: 0,
            parentIdx: -1,
            vars: [tensor("x", [1])],
            ops: [op("yolo_box"), relu, op("yolo_box")],
          }],
        }),
      ),
    );
    const r = await runRill(["ops", file]);
    assertEquals(r, {
      code: 1,
      stdout: [
        "op        count  cpu      wgsl",
        "relu          1  yes      yes",
        "yolo_box      2  missing  missing",
        "",
      ].join("\n"),
      stderr: `error: ${file}: unknown ops: yolo_box ×2\n`,
    });
  });
});

Deno.test("ops takes one program and no run flags; help ops shows its usage", async () => {
  assertEquals(await cli(["ops"]), {
    code: 1,
    stdout: "",
    stderr: "error: usage: ops <program.pb|MODEL_DIR>\n",
  });
  const flagged = await cli(["ops", "examples/mult.pb", "--device", "cpu"]);
  assertEquals(
    [flagged.code, flagged.stderr],
    [1, "error: --device: the ops command does not take it\n"],
  );
  const help = await cli(["help", "ops"]);
  assertStringIncludes(
    help.stdout,
    "deno run -A mod.ts ops <program.pb|program.txtpb|MODEL_DIR>",
  );
  assertStringIncludes((await cli(["--help"])).stdout, "mod.ts ops <");
});

Deno.test({
  name:
    "ops shows a real model's fallbacks: fill_constant_batch_size_like on the CPU, dropout partly, rnn in WGSL",
  ignore: IGNORE_PADDLE_MODELS,
  async fn() {
    const r = await cli(["ops", `${PADDLE_MODELS}/paddlets_lstnet`]);
    assertEquals(r.code, 0);
    const rows = r.stdout.split("\n").map((l) => l.split(/  +/));
    const row = (type: string) => rows.find((cells) => cells[0] === type);
    assertEquals(row("rnn"), ["rnn", "2", "yes", "yes"]);
    assertEquals(row("fill_constant_batch_size_like")?.slice(2), ["yes", "no"]);
    assertEquals(row("dropout")?.slice(2), [
      "yes",
      "partly (fill on the CPU)",
    ]);
    assertEquals(row("conv2d")?.slice(2), ["yes", "yes"]);
  },
});

Deno.test({
  name: "--explain on webgpu names the ops that fall back to the CPU, or none",
  ignore: IGNORE_PADDLE_MODELS || ignoreGpu,
  async fn() {
    const dir = `${PADDLE_MODELS}/paddlets_lstnet`;
    const feed = `past_target=${dir}/normal2.npy`;
    const lstnet = await runRill([
      dir,
      "--device",
      "webgpu",
      "--explain",
      "--feed",
      feed,
    ]);
    assertEquals(lstnet.code, 0, lstnet.stderr);
    assertStringIncludes(
      lstnet.stderr,
      "\ncpu fallback: fill_constant_batch_size_like ×2\n",
    );
    const mult = await cli([
      "examples/mult.pb",
      "--device",
      "webgpu",
      "--explain",
    ]);
    assertStringIncludes(mult.stderr, "\ncpu fallback: none\n");
    const cpu = await cli(["examples/mult.pb", "--device", "cpu", "--explain"]);
    assertEquals(cpu.stderr.includes("cpu fallback"), false);
  },
});
