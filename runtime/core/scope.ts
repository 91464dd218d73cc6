/**
 * Scopes: the variables of one run of one block, with a parent chain that
 * mirrors the block tree. A variable resolves to the scope of the block that
 * declares it, so a sub-block (a `while` pass, a `go` block) reads and
 * writes its outer variables by reference, like a Go closure.
 *
 * @module
 */
import {
  type BlockDesc,
  type VarDesc,
  VarType_Type,
} from "../../gen/rill/v1/framework_pb.ts";
import { TensorArray, type Value } from "./value.ts";

function localArray(): TensorArray {
  return new TensorArray();
}

/**
 * The variables a block declares, in order, and what each starts as:
 * a CHANNEL the nil channel, a LOD_TENSOR_ARRAY a new empty array, a RAW an
 * empty list, a tensor nothing (docs/architecture.md §2).
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { BlockDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { BlockLayout } from "./scope.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const block = create(BlockDescSchema, { vars: [{ name: "a" }, { name: "ch", type: { type: 16 } }] });
 * const layout = new BlockLayout(block, ["arg"]);
 * assertEquals([layout.names, layout.slotOf("ch")], [["a", "ch", "arg"], 1]);
 * ```
 */
export class BlockLayout {
  /** Variable names in declaration order; a name's index is its slot. */
  readonly names: readonly string[];
  readonly #slots: ReadonlyMap<string, number>;
  /** Each slot's declaration; `undefined` for the extra locals. */
  readonly #declarations: readonly (VarDesc | undefined)[];
  readonly #template: readonly Value[];
  readonly #arraySlots: readonly number[];

  /**
   * Lays out the variables of `block`, plus `locals`: names the op running
   * the block binds per run although the block does not declare them (a
   * `go` op's `Args`, bound by value like a Go call's parameters).
   *
   * @param block The block.
   * @param locals Extra per-run variables.
   */
  constructor(block: BlockDesc, locals: readonly string[] = []) {
    const slots = new Map<string, number>();
    const declarations: VarDesc[] = [];
    const template: Value[] = [];
    const arraySlots: number[] = [];
    for (const v of block.vars) {
      if (slots.has(v.name)) continue; // the validator reports duplicates
      const i = template.length;
      slots.set(v.name, i);
      declarations.push(v);
      const type = v.type?.type;
      template.push(
        type === VarType_Type.CHANNEL
          ? null
          : type === VarType_Type.RAW
          ? []
          : undefined,
      );
      if (type === VarType_Type.LOD_TENSOR_ARRAY) arraySlots.push(i);
    }
    for (const name of locals) {
      if (slots.has(name)) continue;
      slots.set(name, template.length);
      template.push(undefined);
    }
    this.names = [...slots.keys()];
    this.#slots = slots;
    this.#declarations = declarations;
    this.#template = template;
    this.#arraySlots = arraySlots;
  }

  /**
   * The slot of a variable, or `undefined` when the block does not declare
   * it.
   *
   * @param name The variable.
   * @returns Its slot.
   */
  slotOf(name: string): number | undefined {
    return this.#slots.get(name);
  }

  /**
   * The block's declaration of a variable, or `undefined` when the block
   * does not declare it (an extra local, or a variable of an ancestor).
   *
   * @param name The variable.
   * @returns Its declaration.
   *
   * @example Usage
   * ```ts
   * import { create } from "@bufbuild/protobuf";
   * import { BlockDescSchema } from "../../gen/rill/v1/framework_pb.ts";
   * import { BlockLayout } from "./scope.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const layout = new BlockLayout(create(BlockDescSchema, { vars: [{ name: "a" }] }), ["arg"]);
   * assertEquals(layout.declarationOf("a")?.name, "a");
   * assertEquals(layout.declarationOf("arg"), undefined);
   * ```
   */
  declarationOf(name: string): VarDesc | undefined {
    const slot = this.#slots.get(name);
    return slot === undefined ? undefined : this.#declarations[slot];
  }

  /**
   * Returns `values` to what a fresh set holds, for a scope that serves the
   * block's next run too.
   *
   * @param values A set `freshValues` made for this layout.
   * @param newArray Makes the block's declared tensor arrays.
   *
   * @example Usage
   * ```ts
   * import { create } from "@bufbuild/protobuf";
   * import { BlockDescSchema } from "../../gen/rill/v1/framework_pb.ts";
   * import { BlockLayout } from "./scope.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const layout = new BlockLayout(create(BlockDescSchema, { vars: [{ name: "a" }] }));
   * const values = layout.freshValues();
   * values[0] = [];
   * layout.refill(values);
   * assertEquals(values, [undefined]);
   * ```
   */
  refill(values: Value[], newArray: () => TensorArray = localArray): void {
    const template = this.#template;
    for (let i = 0; i < template.length; i++) values[i] = template[i];
    for (const i of this.#arraySlots) values[i] = newArray();
  }

  /**
   * A fresh set of values for one run of the block.
   *
   * @param newArray Makes the block's declared tensor arrays.
   * @returns The initial values.
   */
  freshValues(newArray: () => TensorArray = localArray): Value[] {
    const values = this.#template.slice();
    for (const i of this.#arraySlots) values[i] = newArray();
    return values;
  }
}

/**
 * The variables of one run of a block.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { BlockDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { BlockLayout, Scope } from "./scope.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const block = create(BlockDescSchema, {
 *   vars: [{ name: "ch", type: { type: 16 } }],
 * });
 * const scope = new Scope(new BlockLayout(block));
 * assertEquals(scope.get("ch"), null); // the nil channel
 * ```
 */
export class Scope {
  /** The values, by the layout's slots. */
  readonly values: Value[];
  /** The scope of the parent block's run, if any. */
  readonly parent: Scope | undefined;
  /** The block's variables. */
  readonly layout: BlockLayout;
  /**
   * Makes the tensor arrays a block declares, in this scope and the ones
   * inside it: shared ones in a run that spans workers.
   */
  readonly newArray: () => TensorArray;

  /**
   * Makes a scope with fresh values.
   *
   * @param layout The block's variables.
   * @param parent The enclosing scope.
   * @param newArray Makes declared tensor arrays; inherited from `parent`.
   */
  constructor(
    layout: BlockLayout,
    parent?: Scope,
    newArray?: () => TensorArray,
  ) {
    this.layout = layout;
    this.parent = parent;
    this.newArray = newArray ?? parent?.newArray ?? localArray;
    this.values = layout.freshValues(this.newArray);
  }

  /**
   * Returns every variable of this scope to its initial value, as a new
   * scope would hold it: for a block whose runs leave their scope to
   * nobody (`PreparedBlock.keepsScope` false), so the next run may take it.
   *
   * @example Usage
   * ```ts
   * import { create } from "@bufbuild/protobuf";
   * import { BlockDescSchema } from "../../gen/rill/v1/framework_pb.ts";
   * import { BlockLayout, Scope } from "./scope.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const scope = new Scope(new BlockLayout(create(BlockDescSchema, { vars: [{ name: "x" }] })));
   * scope.set("x", []);
   * scope.clear();
   * assertEquals(scope.get("x"), undefined);
   * ```
   */
  clear(): void {
    this.layout.refill(this.values, this.newArray);
  }

  /**
   * The value of a variable, looked up by name through the parent chain.
   *
   * @param name The variable.
   * @returns Its value; `undefined` when unset or undeclared.
   */
  get(name: string): Value {
    const [scope, slot] = this.#find(name) ?? [];
    return scope?.values[slot!];
  }

  /**
   * Sets a variable, looked up by name through the parent chain.
   *
   * @param name The variable.
   * @param value Its new value.
   */
  set(name: string, value: Value): void {
    const found = this.#find(name);
    if (found === undefined) {
      throw new RangeError(`set variable: "${name}" is not declared`);
    }
    found[0].values[found[1]] = value;
  }

  /**
   * Whether a variable is declared here or in a parent.
   *
   * @param name The variable.
   * @returns Whether it resolves.
   */
  has(name: string): boolean {
    return this.#find(name) !== undefined;
  }

  #find(name: string): [Scope, number] | undefined {
    const slot = this.layout.slotOf(name);
    if (slot !== undefined) return [this, slot];
    return this.parent === undefined ? undefined : this.parent.#find(name);
  }
}
