/**
 * Builder for the `select` op:
 * `select(s => { s.send(...); s.recv(...); s.default(...) })`, one
 * sub-block per case.
 *
 * @module
 */
import { outerVariables } from "../build/outer_variables.ts";
import { type Block, defaultProgram, type Variable } from "../build/program.ts";
import { uniqueByName } from "./append_layer.ts";

/** Adds the cases of a `select`; each case's body builds its block. */
export interface SelectBuilder {
  /** A send of `x` on `ch`; `body` runs if it is chosen. */
  send(ch: Variable, x: Variable, body?: () => void): void;
  /**
   * A receive from `ch`; `body` gets the value and status variables and
   * runs if it is chosen.
   */
  recv(ch: Variable, body?: (value: Variable, ok: Variable) => void): void;
  /** The default case: runs when no other case is ready. */
  default(body?: () => void): void;
}

/**
 * `select`: waits until one case can proceed and runs it; a uniformly
 * random choice among ready cases; `default` when none is ready.
 *
 * @param build Adds the cases.
 *
 * @example Usage
 * ```ts
 * import { Executor, fillConstant, makeChannel, print, Program, select } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const ch = makeChannel({ capacity: 1 });
 *   const x = fillConstant({ shape: [1], value: 7 });
 *   select((s) => {
 *     s.recv(ch, (v) => print(v));
 *     s.default(() => print(x, { message: "nothing ready" }));
 *   });
 * });
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["nothing ready 7"]);
 * ```
 */
export function select(build: (s: SelectBuilder) => void): void {
  const program = defaultProgram();
  const outer = program.currentBlock;
  const cases: string[] = [];
  const blocks: Block[] = [];
  const used: Variable[] = [];
  const addCase = (text: string, body: () => void, vars: Variable[]) => {
    cases.push(text);
    blocks.push(program.subBlock(body));
    used.push(...vars);
  };
  build({
    send(ch, x, body = () => {}) {
      addCase(`send,${ch.name},${x.name},`, body, [ch, x]);
    },
    recv(ch, body = () => {}) {
      const value = outer.createVar({
        name: program.uniqueName("select.value"),
      });
      const ok = outer.createVar({
        name: program.uniqueName("select.ok"),
        dtype: "bool",
        shape: [1],
      });
      addCase(
        `recv,${ch.name},${value.name},${ok.name}`,
        () => body(value, ok),
        [ch],
      );
    },
    default(body = () => {}) {
      addCase("default,,,", body, []);
    },
  });
  const free = blocks.flatMap((b) => {
    const { reads, writes } = outerVariables(b);
    return [...reads, ...writes];
  });
  outer.appendOp({
    type: "select",
    inputs: { X: uniqueByName([...used, ...free]) },
    attrs: { cases, sub_blocks: blocks },
  });
}
