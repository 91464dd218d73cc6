// processEnv() under a scoped --allow-env, in a real `deno run` process:
// listed variables read, the others read as unset instead of throwing.

import { assertEquals } from "@std/assert";
import { ROOT } from "../../_helpers/rill_process.ts";
import { withTempDir } from "../../_helpers/with_temp_dir.ts";

Deno.test("processEnv() reads a listed variable and takes an unlisted one as unset", async () => {
  await withTempDir(async (dir) => {
    const script = `${dir}/read_env.ts`;
    await Deno.writeTextFile(
      script,
      `import { processEnv } from "${ROOT}runtime/core/process_env.ts";\n` +
        "const env = processEnv();\n" +
        'console.log(JSON.stringify([env.LISTED, env.UNLISTED ?? null, "UNLISTED" in env]));\n',
    );
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-config",
        "--no-lock",
        `--allow-read=${ROOT},${dir}`,
        "--allow-env=LISTED",
        script,
      ],
      env: { LISTED: "yes", UNLISTED: "secret" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assertEquals(output.code, 0, stderr);
    assertEquals(
      JSON.parse(new TextDecoder().decode(output.stdout)),
      ["yes", null, false],
    );
  });
});
