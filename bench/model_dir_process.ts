// Whole-process timing of a model directory run: `deno run -A mod.ts
// MODEL_DIR --feed img=...` on the recognize_digits MLP that Fluid saved
// (../shared/paddle-models/recognize_digits_mlp, or under
// RILL_PADDLE_MODELS: __model__ and six parameter files,
// 784→200→200→10), start-up, loading and the run
// included, beside a `deno eval` that does nothing (Deno's own start-up).
// Default flags, so the run decides on a worker pool as a user's would.
//
//   deno run -A bench/model_dir_process.ts [rounds]

const rounds = Number(Deno.args[0] ?? 15);
const root = new URL("../", import.meta.url).pathname;
const models = Deno.env.get("RILL_PADDLE_MODELS") ??
  `${root}../shared/paddle-models`;

async function timeProcess(args: string[]): Promise<number> {
  const t0 = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: root,
    stdout: "null",
    stderr: "inherit",
  }).output();
  const ms = performance.now() - t0;
  if (!out.success) throw new Error(`${args.join(" ")}: exit ${out.code}`);
  return ms;
}

function summary(times: number[]): string {
  const sorted = times.toSorted((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  return `median ${median.toFixed(0)} ms, min ${sorted[0].toFixed(0)} ms`;
}

const model = [
  "run",
  "-A",
  "--quiet",
  "mod.ts",
  `${models}/recognize_digits_mlp`,
  "--feed",
  `img=${models}/recognize_digits_mlp/input.npy`,
];
const bare = ["eval", "0"];
await timeProcess(model); // warms Deno's module cache
const modelTimes: number[] = [];
const bareTimes: number[] = [];
for (let i = 0; i < rounds; i++) {
  modelTimes.push(await timeProcess(model));
  bareTimes.push(await timeProcess(bare));
}
console.log(`model directory run: ${summary(modelTimes)}`);
console.log(`deno eval 0:         ${summary(bareTimes)}`);
