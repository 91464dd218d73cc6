/**
 * A master's say on Kubernetes discovery at run time: `--label-selector`
 * and `--namespace` (else `RILL_LABEL_SELECTOR` and `RILL_NAMESPACE`)
 * override what `transpile` baked into master.pb, `--min-workers` starts
 * once that many workers are ready, `--discovery-timeout` bounds the wait,
 * and the wait's progress lines go to stderr.
 *
 * @module
 */
import { parseDuration } from "../cluster/worker_limits.ts";
import { ProgramError } from "../core/errors.ts";
import type { DiscoveryOverrides } from "../core/thread_context.ts";
import { type CliIO, type Flags, positiveInt } from "./_command_line.ts";

/** The environment variable that overrides the worker pods' selector. */
export const LABEL_SELECTOR_ENV = "RILL_LABEL_SELECTOR";

/** The environment variable that overrides the namespace searched. */
export const NAMESPACE_ENV = "RILL_NAMESPACE";

// A namespace is an RFC 1123 label: what the API server accepts.
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * The discovery settings the flags and the environment ask for, each
 * checked; the progress lines go to `io.stderr`.
 *
 * @param values The command line's flags.
 * @param env The environment to read the variables from.
 * @param io Where progress lines go.
 * @returns The overrides.
 * @throws {ProgramError} Naming the flag or variable whose value is bad.
 *
 * @example Usage
 * ```ts
 * import { discoveryOverrides } from "./_discovery_flags.ts";
 * import { parseCommandLine } from "./_command_line.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const { values } = parseCommandLine(["m.pb", "--min-workers", "2"]);
 * const io = { stdout: () => {}, stderr: () => {} };
 * const d = discoveryOverrides(values, { RILL_NAMESPACE: "batch" }, io);
 * assertEquals([d.minWorkers, d.namespace, d.labelSelector], [2, "batch", undefined]);
 * ```
 */
export function discoveryOverrides(
  values: Flags,
  env: Readonly<Record<string, string | undefined>>,
  io: CliIO,
): DiscoveryOverrides {
  const selector = given(values["label-selector"], "--label-selector") ??
    given(env[LABEL_SELECTOR_ENV], LABEL_SELECTOR_ENV);
  const namespace = given(values.namespace, "--namespace") ??
    given(env[NAMESPACE_ENV], NAMESPACE_ENV);
  if (namespace !== undefined && !NAMESPACE.test(namespace.value)) {
    throw new ProgramError(
      `${namespace.source}: "${namespace.value}" is not a namespace ` +
        "(lower-case letters, digits and '-', at most 63)",
    );
  }
  const timeout = values["discovery-timeout"];
  return {
    labelSelector: selector?.value,
    namespace: namespace?.value,
    minWorkers: values["min-workers"] === undefined
      ? undefined
      : positiveInt("--min-workers", values["min-workers"], 1),
    timeoutMs: timeout === undefined
      ? undefined
      : parseDuration("discovery-timeout", timeout),
    progress: (line) => io.stderr(`${line}\n`),
  };
}

// A value and where it came from; undefined when not given. A value of
// only spaces is refused: an empty selector would pick every pod.
function given(
  value: string | undefined,
  source: string,
): { value: string; source: string } | undefined {
  if (value === undefined || (value === "" && !source.startsWith("--"))) {
    return undefined;
  }
  if (value.trim() === "") throw new ProgramError(`${source}: is empty`);
  return { value: value.trim(), source };
}
