import { create, equals } from "@bufbuild/protobuf";
import { assert, assertEquals } from "@std/assert";
import { join } from "@std/path";
import {
  assignValue,
  decodeProgram,
  encodeProgram,
  fillConstant,
  mul,
  print,
  Program,
  type ProgramDesc,
  read,
  transpile,
  whileLoop,
} from "../mod.ts";
import { ProgramDescSchema } from "../gen/rill/v1/framework_pb.ts";
import { buildProgram } from "./_helpers/run_program.ts";
import { ROOT } from "./_helpers/rill_process.ts";
import { withTempDir } from "./_helpers/with_temp_dir.ts";

Deno.test("mod.ts ends quietly with 141 when its stdout reader leaves", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "forever.pb");
    const [program] = buildProgram(() => {
      const yes = fillConstant({ shape: [1], dtype: "bool", value: 1 });
      whileLoop(yes, () => print(yes, { message: "y" }));
    });
    await program.save(path);
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", `${ROOT}mod.ts`, path],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const reader = child.stdout.getReader();
    const first = await reader.read();
    assertEquals(new TextDecoder().decode(first.value).slice(0, 7), "y true\n");
    await reader.cancel(); // like `| head -1` exiting
    const [status, stderr] = await Promise.all([
      child.status,
      new Response(child.stderr).text(),
    ]);
    assertEquals([status.code, stderr], [141, ""]);
  });
});

Deno.test("mod.ts exports transpile(), which splits the design doc's mult", () => {
  const p = new Program();
  p.guard(() => {
    const [x] = read("x.npy");
    print(mul(x, assignValue([1, 3, 2, 4], { shape: [2, 2] })), {
      message: "Y",
    });
  });
  // The split itself is transpile_test.ts's: here, that mod.ts has it.
  const { master, worker } = transpile(p.desc);
  const types = (ops: readonly { type: string }[]) => ops.map((op) => op.type);
  assert(types(master.blocks[0].ops).includes("parallel_for"));
  assertEquals(types(worker.blocks[1].ops), ["mul"]);
});

Deno.test("deno.json's ./proto entry point holds the schemas of mod.ts's messages", () => {
  const config = Deno.readTextFileSync(join(ROOT, "deno.json"));
  assertEquals(
    config.match(/"\.\/proto": "([^"]*)"/)?.[1],
    "./gen/rill/v1/framework_pb.ts",
  );
  const desc: ProgramDesc = create(ProgramDescSchema, {
    blocks: [{ idx: 0, parentIdx: -1 }],
  });
  const again = decodeProgram(encodeProgram(desc, "p.pb"), "p.pb");
  assert(equals(ProgramDescSchema, again, desc));
});
