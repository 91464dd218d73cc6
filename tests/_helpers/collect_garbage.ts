// A full garbage collection on demand, for tests of what finalizers free:
// V8's `gc` exposed at run time (Deno's node:v8 passes the flag to V8, and
// a new context made after it sees the function), then one macrotask, in
// which the finalizers of what was collected run.

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let gc: (() => void) | undefined;

/**
 * Collects garbage, then waits one macrotask.
 *
 * @returns When the finalizers of what was collected have run.
 */
export async function collectGarbage(): Promise<void> {
  if (gc === undefined) {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as () => void;
  }
  gc();
  await new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Collects garbage until `done()` holds, at most `tries` times: V8 may keep
 * a dead object through one collection (a register or a stack slot still
 * naming it), so a test waits for the effect it expects, not for one
 * collection.
 *
 * @param done Whether the finalizers the test waits for have run.
 * @param tries The most collections.
 * @returns Whether `done()` held in the end.
 */
export async function collectGarbageUntil(
  done: () => boolean,
  tries = 20,
): Promise<boolean> {
  for (let i = 0; i < tries && !done(); i++) await collectGarbage();
  return done();
}
