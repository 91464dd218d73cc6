/**
 * Where each declared variable of a program is used: every op of every
 * block, reached from block 0 or not, with each name it uses (`opUses`)
 * resolved to the declaration it reaches, in the op's block or the nearest
 * ancestor (docs/architecture.md §2, "Scoping"). A go's `Args` are
 * resolved the same way inside its block: they are bound to the value the
 * outer variable holds at the spawn.
 *
 * @module
 */
import type { ProgramDesc, VarDesc } from "../../gen/rill/v1/framework_pb.ts";
import { type OpUse, opUses, type UseKind } from "./op_uses.ts";

/** One use of a variable: the op, where it sits, and what it does. */
export interface UseSite {
  /** The op's block. */
  readonly block: number;
  /** The op's index in the block. */
  readonly op: number;
  /** The op's type. */
  readonly type: string;
  /** What the op does with the variable. */
  readonly kind: UseKind;
  /** The slot naming it, or `case N` in a `select`. */
  readonly slot: string;
}

/** A declared variable and every use of it, in program order. */
export interface DeclaredVariable {
  /** The declaring block. */
  readonly block: number;
  /** The declaration. */
  readonly desc: VarDesc;
  /** Its uses, by block, then op, then slot order. */
  readonly uses: UseSite[];
}

/** The declared variables of a program with their uses. */
export interface ProgramUses {
  /** Every declaration, by block, then in declaration order. */
  readonly variables: readonly DeclaredVariable[];
  /**
   * The declaration a name reaches from a block.
   *
   * @param block The block the name is used in.
   * @param name The name.
   * @returns The declaration, or undefined when none is visible.
   */
  resolve(block: number, name: string): DeclaredVariable | undefined;
}

/**
 * Resolves every name every op uses. Linear in the program's size times the
 * block nesting depth.
 *
 * @param program The program; it should validate.
 * @returns The declarations with their uses.
 * @throws {RangeError} When a `select`'s cases cannot be read.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, increment, print, Program } from "../../mod.ts";
 * import { programUses } from "./variable_uses.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const x = fillConstant({ shape: [1], value: 1 });
 *   increment(x);
 *   print(x);
 * });
 * const x = programUses(p.desc).resolve(0, "fill_constant.out_0");
 * assertEquals(x?.uses.map((u) => `${u.op} ${u.type} ${u.kind}`), [
 *   "0 fill_constant write", "1 increment read", "1 increment write", "2 print read",
 * ]);
 * ```
 */
export function programUses(program: ProgramDesc): ProgramUses {
  const scope = new BlockScopes(program);
  program.blocks.forEach((block, b) => {
    block.ops.forEach((op, i) => {
      const at = (u: OpUse): UseSite => ({
        block: b,
        op: i,
        type: op.type,
        kind: u.kind,
        slot: u.slot,
      });
      for (const u of opUses(op)) scope.resolve(b, u.name)?.uses.push(at(u));
    });
  });
  return {
    variables: scope.all,
    resolve: (block, name) => scope.resolve(block, name),
  };
}

/** Each block's declarations by name, and the walk up the parents. */
class BlockScopes {
  readonly all: DeclaredVariable[] = [];
  readonly #byName: Map<string, DeclaredVariable>[];
  readonly #parent: number[];

  constructor(program: ProgramDesc) {
    this.#byName = program.blocks.map((block, b) => {
      const names = new Map<string, DeclaredVariable>();
      for (const desc of block.vars) {
        if (names.has(desc.name)) continue;
        const v: DeclaredVariable = { block: b, desc, uses: [] };
        names.set(desc.name, v);
        this.all.push(v);
      }
      return names;
    });
    // A parent must be an earlier block (the validator's rule); any other
    // ends the walk, so a malformed program cannot loop it.
    this.#parent = program.blocks.map((block, b) =>
      block.parentIdx < b ? block.parentIdx : -1
    );
  }

  resolve(block: number, name: string): DeclaredVariable | undefined {
    for (let b = block; b >= 0; b = this.#parent[b]) {
      const v = this.#byName[b]?.get(name);
      if (v !== undefined) return v;
    }
    return undefined;
  }
}
