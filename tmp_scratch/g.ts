import {
  elementwiseAdd,
  Executor,
  fillConstant,
  Program,
  type Variable,
} from "../mod.ts";
const program = new Program();
let y: Variable | undefined;
program.guard(() => {
  const x = fillConstant({ shape: [256, 256], dtype: "float32", value: 2 });
  y = elementwiseAdd(x, x);
});
let events: any[] = [];
const r = await new Executor({ device: "webgpu", trace: (e) => events = e })
  .run(program.desc, { fetch: [y!.name] });
console.log(r.device);
for (const e of events) {
  if (e.tid < 0 || e.ph === "M") console.log(JSON.stringify(e));
}
