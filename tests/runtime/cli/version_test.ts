import { assertEquals } from "@std/assert";
import { VERSION } from "../../../runtime/cli/version.ts";

Deno.test("VERSION is deno.json's version", async () => {
  const config = await Deno.readTextFile(
    new URL("../../../deno.json", import.meta.url),
  );
  // deno.json has comments: read the one field.
  const version = /^\s*"version":\s*"([^"]+)"/m.exec(config)?.[1];
  assertEquals(VERSION, version);
});
