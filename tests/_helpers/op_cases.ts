/**
 * Table-driven op tests: each op group's test file lists cases keyed by op
 * type, and `testOpCases` registers one test per case plus a test that the
 * table has a case for every op of the group, so an op added to the
 * registry without a conformance case fails the suite.
 *
 * @module
 */
import { assertEquals } from "@std/assert";
import type { DType, OpDef } from "../../mod.ts";
import type { NestedValue } from "../../kernels/tensor.ts";
import {
  buildProgram,
  type Fetches,
  runProgram,
  tensorOf,
} from "./run_program.ts";
import {
  type KernelCalls,
  recordKernelCalls,
  undeclaredCalls,
} from "./kernel_recorder.ts";
import { TEST_DEVICE } from "./test_device.ts";

/** What a case expects of the tensor its program returns. */
export interface TensorExpectation {
  /** The element type. */
  dtype: DType;
  /** The shape. */
  shape: readonly number[];
  /** The values, as `Tensor.toNested` gives them (bigint for int64). */
  values?: NestedValue;
}

/** One behaviour of one op, run as a built program. */
export interface OpCase {
  /** The behaviour, completing the test name after the op type. */
  what: string;
  /** Builds the program; returns the variables whose tensors to check. */
  build: () => Fetches;
  /** The lines the program prints, exactly. */
  lines?: readonly string[];
  /** The returned variables' tensors, in order. */
  tensors?: readonly TensorExpectation[];
  /** Why the case is skipped (a known bug), if it is. */
  knownBug?: string;
}

/** Cases by op type. */
export type OpCases = Readonly<Record<string, readonly OpCase[]>>;

/**
 * Registers the tests of a table of op cases, and one that runs them all
 * on a recording device to check each op's declared kernels.
 *
 * @param group The group's name, as its registry list is named.
 * @param defs The group's op definitions.
 * @param cases The cases by op type.
 */
export function testOpCases(
  group: string,
  defs: readonly OpDef[],
  cases: OpCases,
): void {
  Deno.test(`${group}: every op has a conformance case`, () => {
    const missing = defs.map((d) => d.type).filter((t) =>
      (cases[t]?.length ?? 0) === 0
    );
    assertEquals(missing, [], `ops without a case: ${missing.join(", ")}`);
    const unknown = Object.keys(cases).filter((t) =>
      !defs.some((d) => d.type === t)
    );
    assertEquals(unknown, [], `cases for ops not in ${group}`);
  });
  // The declarations of OpDef.kernels against what the ops call: every
  // case run again on a recording CPU device (once, on the CPU pass).
  Deno.test({
    name: `${group}: every kernel an op calls is among its declared kernels`,
    ignore: TEST_DEVICE !== "cpu",
    async fn() {
      const calls: KernelCalls = new Map();
      for (const c of Object.values(cases).flat()) {
        if (c.knownBug !== undefined) continue;
        await recordKernelCalls(buildProgram(c.build)[0].desc, calls);
      }
      assertEquals(undeclaredCalls(calls), []);
    },
  });
  for (const [type, list] of Object.entries(cases)) {
    for (const c of list) {
      Deno.test({
        name: `${type} ${c.what}`,
        ignore: c.knownBug !== undefined,
        fn: () => runCase(c),
      });
    }
  }
}

async function runCase(c: OpCase): Promise<void> {
  const run = await runProgram(c.build);
  if (c.lines !== undefined) assertEquals(run.lines, c.lines);
  (c.tensors ?? []).forEach((want, i) => {
    const t = tensorOf(run.values[i]);
    assertEquals(
      { dtype: t.dtype, shape: t.shape },
      { dtype: want.dtype, shape: want.shape },
      `tensor ${i}`,
    );
    if (want.values !== undefined) {
      assertEquals(t.toNested(), want.values, `tensor ${i} values`);
    }
  });
}
