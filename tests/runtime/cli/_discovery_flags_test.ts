import { assertEquals, assertThrows } from "@std/assert";
import { parseCommandLine } from "../../../runtime/cli/_command_line.ts";
import { discoveryOverrides } from "../../../runtime/cli/_discovery_flags.ts";
import { ProgramError } from "../../../runtime/core/errors.ts";

function overrides(args: string[], env: Record<string, string> = {}) {
  const { values } = parseCommandLine(["m.pb", ...args]);
  return discoveryOverrides(values, env);
}

Deno.test("discoveryOverrides() takes the flags first, then RILL_LABEL_SELECTOR and RILL_NAMESPACE", () => {
  const env = { RILL_LABEL_SELECTOR: "app=env", RILL_NAMESPACE: "from-env" };
  const flags = overrides([
    "--label-selector",
    "app in (a,b)",
    "--namespace",
    "batch-1",
    "--min-workers",
    "3",
    "--discovery-timeout",
    "1.5m",
    "--dial-by",
    "dns",
  ], env);
  assertEquals(flags.dialBy, "dns");
  assertEquals(overrides([], { RILL_DIAL_BY: "dns" }).dialBy, "dns");
  assertEquals(
    [flags.labelSelector, flags.namespace, flags.minWorkers, flags.timeoutMs],
    ["app in (a,b)", "batch-1", 3, 90_000],
  );
  const fromEnv = overrides([], env);
  assertEquals([fromEnv.labelSelector, fromEnv.namespace], [
    "app=env",
    "from-env",
  ]);
  const none = overrides([], { RILL_LABEL_SELECTOR: "" });
  assertEquals(
    [none.labelSelector, none.namespace, none.minWorkers, none.timeoutMs],
    [undefined, undefined, undefined, undefined],
  );
});

Deno.test("discoveryOverrides() asks for progress lines, as plain data a pool can copy", () => {
  const d = overrides(["--min-workers", "2"]);
  assertEquals(d.progress, true);
  assertEquals(structuredClone(d), d);
});

Deno.test("discoveryOverrides() refuses bad values naming the flag or variable", () => {
  for (
    const [args, env, message] of [
      [["--min-workers", "0"], {}, '--min-workers: "0" is not a valid number'],
      [
        ["--discovery-timeout", "soon"],
        {},
        '--discovery-timeout: "soon" is not a duration',
      ],
      [
        ["--namespace", "Rill_NS"],
        {},
        '--namespace: "Rill_NS" is not a namespace',
      ],
      [
        [],
        { RILL_NAMESPACE: "a/b" },
        'RILL_NAMESPACE: "a/b" is not a namespace',
      ],
      [["--label-selector", " "], {}, "--label-selector: is empty"],
      [["--dial-by", "name"], {}, '--dial-by: "name" is not one of ip, dns'],
      [[], { RILL_DIAL_BY: "x" }, 'RILL_DIAL_BY: "x" is not one of ip, dns'],
    ] as const
  ) {
    assertThrows(() => overrides([...args], env), ProgramError, message);
  }
});
