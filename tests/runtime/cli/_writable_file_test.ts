import { assertEquals, assertRejects } from "@std/assert";
import { checkWritable } from "../../../runtime/cli/_writable_file.ts";
import { ProgramError } from "../../../runtime/core/errors.ts";
import { withTempDir } from "../../_helpers/with_temp_dir.ts";

const exists = (file: string) => Deno.lstat(file).then(() => true, () => false);

Deno.test("checkWritable() leaves no file behind where there was none", async () => {
  await withTempDir(async (dir) => {
    await checkWritable("--trace", `${dir}/run.json`);
    assertEquals(await exists(`${dir}/run.json`), false);
  });
});

Deno.test("checkWritable() keeps an existing file's contents", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/y.npy`, "kept");
    await checkWritable("--fetch y", `${dir}/y.npy`);
    assertEquals(await Deno.readTextFile(`${dir}/y.npy`), "kept");
  });
});

Deno.test("checkWritable() names the flag and the file it cannot write", async () => {
  await withTempDir(async (dir) => {
    await assertRejects(
      () => checkWritable("--record", `${dir}/missing/run.rec`),
      ProgramError,
      `--record: cannot write "${dir}/missing/run.rec": `,
    );
  });
});
