import { Executor } from "/work/wt-trace/runtime/run/executor.ts";
import { loadModel } from "/work/wt-trace/runtime/format/model_dir.ts";
const [path, workers] = Deno.args;
const model = await loadModel(path);
let ev: any[] = [];
try {
  await new Executor({
    workers: Number(workers ?? 1),
    trace: (e) => ev = e,
    print: () => {},
  }).run(model);
} catch (e) {
  console.log("ERR", String(e));
}
for (const e of ev) console.log(JSON.stringify(e));
