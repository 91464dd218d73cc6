/**
 * Paddle 3 PIR programs (issue 25): decoding the PP-LCNet text-line
 * classifier's `inference.json` (100 KB) into a `ProgramDesc`, loading its
 * model directory (the program and its 320 KB `.pdiparams`, read from
 * disk and checked), and running it at batch 1 on the CPU. The model is
 * test data, read from `../shared/paddle-models-pir`; without it every
 * bench is ignored.
 *
 * ```sh
 * deno bench -A bench/pir_bench.ts
 * ```
 *
 * @module
 */
import {
  decodeNpy,
  decodePirProgram,
  decodeProgram,
  Executor,
  loadModel,
  Program,
  type Tensor,
} from "../mod.ts";

const DIR = new URL(
  "../../shared/paddle-models-pir/pp_lcnet_x0_25_textline_ori",
  import.meta.url,
)
  .pathname;
const present = await Deno.stat(DIR).then((s) => s.isDirectory, () => false);

const json = present
  ? await Deno.readFile(`${DIR}/inference.json`)
  : new Uint8Array();
const text = new TextDecoder().decode(json);
const program = present ? await Program.load(DIR) : new Program();
const input: Tensor | undefined = present
  ? decodeNpy(await Deno.readFile(`${DIR}/input.npy`))
  : undefined;
const cpu = new Executor({ device: "cpu", workers: 1 });

if (present) {
  const ops = program.desc.blocks.reduce((n, b) => n + b.ops.length, 0);
  console.log(
    `classifier: 260 PIR ops (145 of them parameters) -> ${ops} Rill ops`,
  );
}

Deno.bench({
  name: "PIR classifier: JSON.parse + decode (100 KB)",
  group: "decode",
  ignore: !present,
  fn() {
    decodePirProgram(text);
  },
});

Deno.bench({
  name: "PIR classifier: decode + convert to a ProgramDesc",
  group: "decode",
  baseline: true,
  ignore: !present,
  fn() {
    decodeProgram(json, "inference.json");
  },
});

Deno.bench({
  name:
    "PIR classifier: load the model directory (files, program, 145 parameters checked)",
  group: "decode",
  ignore: !present,
  async fn() {
    await loadModel(DIR);
  },
});

Deno.bench({
  name: "PIR classifier: run at batch 1 on the CPU (one worker)",
  group: "run",
  ignore: !present,
  async fn() {
    await cpu.run(program, { feeds: { x: input! }, fetch: ["fetch_name_0"] });
  },
});
