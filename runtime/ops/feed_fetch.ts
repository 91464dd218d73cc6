/**
 * Fluid's `feed` and `fetch` ops, the ends of a program that
 * `save_inference_model` writes, with Paddle's slots and attribute:
 *
 * - `feed`: X (the FEED_MINIBATCH list, `feed`) → Out; col — binds Out to
 *   the tensor fed at column `col`. The executor fills the list from the
 *   feeds it is given by the name of each feed op's Out (see
 *   `runtime/run/feed_binding.ts`), and refuses to run when one is missing.
 * - `fetch`: X → Out (the FETCH_LIST list, `fetch`); col — stores X's
 *   tensor at column `col` of the list, which it creates on first use.
 *   Fetching a variable never written panics, as any read of one does.
 *
 * Both lists hold tensors by column, as a `TensorArray` does; the list
 * variables are declared FEED_MINIBATCH / FETCH_LIST, which no other op
 * reads or writes.
 *
 * @module
 */
import { AttrError } from "../core/attr_read.ts";
import { attr, defineOp, type OpDef, slot } from "../core/op_def.ts";
import { TensorArray } from "../core/value.ts";
import { Panic } from "../../scheduler/panic.ts";

function checkColumn(col: number): void {
  if (col < 0) throw new AttrError("col", `${col} is negative`);
}

const feed = defineOp({
  type: "feed",
  summary: "Out = the tensor fed at column col of the feed list X",
  inputs: { X: slot.any() },
  outputs: { Out: slot.tensor() },
  attrs: { col: attr.int(0) },
  check: (a) => checkColumn(a.col),
  prepare(ctx) {
    const list = ctx.input("X");
    const out = ctx.output("Out");
    const col = ctx.attrs.col;
    return (scope) => {
      const fed = list.read(scope);
      const t = fed instanceof TensorArray && col < fed.length
        ? fed.snapshot()[col]
        : undefined;
      if (t === undefined) {
        throw new Panic(
          `feed: nothing fed to "${out.name}" (column ${col} of "${list.name}")`,
        );
      }
      out.write(scope, t);
    };
  },
});

const fetch = defineOp({
  type: "fetch",
  summary: "stores X at column col of the fetch list Out",
  inputs: { X: slot.tensor() },
  outputs: { Out: slot.any() },
  attrs: { col: attr.int(0) },
  check: (a) => checkColumn(a.col),
  prepare(ctx) {
    const x = ctx.input("X");
    const list = ctx.output("Out");
    const col = ctx.attrs.col;
    return (scope) => {
      const t = x.tensor(scope);
      let fetched = list.read(scope);
      if (!(fetched instanceof TensorArray)) {
        fetched = new TensorArray();
        list.write(scope, fetched);
      }
      fetched.write(col, t);
    };
  },
});

/**
 * The ends of an inference program: `feed` and `fetch`.
 *
 * @example Usage
 * ```ts
 * import { FEED_FETCH_OPS } from "./feed_fetch.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(FEED_FETCH_OPS.map((def) => def.type), ["feed", "fetch"]);
 * ```
 */
export const FEED_FETCH_OPS: readonly OpDef[] = [feed, fetch];
