import { assertEquals } from "@std/assert";
import { join } from "@std/path";
import { fillConstant, print, whileLoop } from "../mod.ts";
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
