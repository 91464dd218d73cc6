/**
 * A master's say on Kubernetes discovery at run time: `--label-selector`
 * and `--namespace` (else `RILL_LABEL_SELECTOR` and `RILL_NAMESPACE`)
 * override what `transpile` baked into master.pb, `--min-workers` starts
 * once that many workers are ready, `--discovery-timeout` bounds the wait,
 * `--dial-by dns` (else `RILL_DIAL_BY`) dials workers by their DNS names,
 * which a TLS certificate can name, and the wait's progress lines go to
 * stderr.
 *
 * @module
 */
import { parseDuration } from "../cluster/worker_limits.ts";
import { ProgramError } from "../core/errors.ts";
import type { DiscoveryOverrides } from "../core/thread_context.ts";
import { type Flags, positiveInt } from "./_command_line.ts";

/** The environment variable that overrides the worker pods' selector. */
export const LABEL_SELECTOR_ENV = "RILL_LABEL_SELECTOR";

/** The environment variable that overrides the namespace searched. */
export const NAMESPACE_ENV = "RILL_NAMESPACE";

/** The environment variable that says how to dial workers: ip or dns. */
export const DIAL_BY_ENV = "RILL_DIAL_BY";

// A namespace is an RFC 1123 label: what the API server accepts.
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * The discovery settings the flags and the environment ask for, each
 * checked; discovery says what it waits for on stderr.
 *
 * @param values The command line's flags.
 * @param env The environment to read the variables from.
 * @returns The overrides, with progress lines on.
 * @throws {ProgramError} Naming the flag or variable whose value is bad.
 *
 * @example Usage
 * ```ts
 * import { discoveryOverrides } from "./_discovery_flags.ts";
 * import { parseCommandLine } from "./_command_line.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const { values } = parseCommandLine(["m.pb", "--min-workers", "2"]);
 * const d = discoveryOverrides(values, { RILL_NAMESPACE: "batch" });
 * assertEquals([d.minWorkers, d.namespace, d.labelSelector], [2, "batch", undefined]);
 * ```
 */
export function discoveryOverrides(
  values: Flags,
  env: Readonly<Record<string, string | undefined>>,
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
  const dialBy = given(values["dial-by"], "--dial-by") ??
    given(env[DIAL_BY_ENV], DIAL_BY_ENV);
  if (
    dialBy !== undefined && dialBy.value !== "ip" && dialBy.value !== "dns"
  ) {
    throw new ProgramError(
      `${dialBy.source}: "${dialBy.value}" is not one of ip, dns`,
    );
  }
  return {
    labelSelector: selector?.value,
    namespace: namespace?.value,
    minWorkers: values["min-workers"] === undefined
      ? undefined
      : positiveInt("--min-workers", values["min-workers"], 1),
    timeoutMs: timeout === undefined
      ? undefined
      : parseDuration("discovery-timeout", timeout),
    dialBy: dialBy?.value as "ip" | "dns" | undefined,
    progress: true,
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
