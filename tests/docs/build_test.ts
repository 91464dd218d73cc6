import { assertEquals, assertStringIncludes } from "@std/assert";
import {
  CATALOG_PATH,
  formatMarkdown,
  operatorCatalog,
} from "../../docs/build.ts";
import { OP_GROUPS, OPS } from "../../runtime/ops/mod.ts";

Deno.test("docs/operators.md is what `deno task docs` writes from the op table", async () => {
  const written = await Deno.readTextFile(CATALOG_PATH);
  assertEquals(written, await formatMarkdown(operatorCatalog(OP_GROUPS)));
});

Deno.test("operatorCatalog() has a section for every op, with its slots and attribute defaults", () => {
  const catalog = operatorCatalog(OP_GROUPS);
  for (const type of OPS.keys()) {
    assertStringIncludes(catalog, `### \`${type}\`\n`);
  }
  assertStringIncludes(
    catalog,
    "- inputs: `X` (tensor), `Y` (tensor)\n- outputs: `Out` (tensor)\n" +
      "- attributes: `axis` (int) = `-1`",
  );
  assertStringIncludes(catalog, "`X` (tensor, duplicable)");
});

Deno.test("operatorCatalog() says where every op runs, in a table and per op", () => {
  const catalog = operatorCatalog(OP_GROUPS);
  for (const type of OPS.keys()) {
    assertStringIncludes(catalog, `| \`${type}\` | `);
  }
  assertStringIncludes(catalog, "| `fill_constant_batch_size_like` | cpu |");
  assertStringIncludes(catalog, "| `rnn` | cpu, wgsl |");
  assertStringIncludes(catalog, "| `conv2d` | cpu, wgsl |");
  assertStringIncludes(catalog, "| `go` | host |");
  assertStringIncludes(
    catalog,
    "### `fill_constant_batch_size_like`\n\n",
  );
  const section = catalog.slice(
    catalog.indexOf("### `fill_constant_batch_size_like`"),
  );
  assertStringIncludes(
    section.slice(0, section.indexOf("\n### ")),
    "\n- devices: cpu\n",
  );
});
