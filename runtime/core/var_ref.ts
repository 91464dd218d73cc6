/**
 * A variable an op reads or writes, resolved once at prepare time to a
 * scope depth and a slot, so that running the op walks no names.
 *
 * @module
 */
import { Tensor } from "../../kernels/tensor.ts";
import { Channel } from "../../scheduler/channel.ts";
import { SharedChannel } from "../../scheduler/shared/shared_channel.ts";
import { Panic } from "../../scheduler/panic.ts";
import type { VarInfo } from "./op_def.ts";
import type { Scope } from "./scope.ts";
import {
  kindOfValue,
  type RawValue,
  TensorArray,
  type TensorChannel,
  type Value,
} from "./value.ts";

/**
 * A resolved variable: `depth` parents up from the op's scope, at `slot`.
 * The typed readers panic, naming the variable, when it holds the wrong kind
 * or was never written.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { BlockDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { BlockLayout, Scope } from "./scope.ts";
 * import { VarRef } from "./var_ref.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const block = create(BlockDescSchema, { vars: [{ name: "x", type: { type: 7 } }] });
 * const scope = new Scope(new BlockLayout(block));
 * const x = new VarRef({ name: "x", kind: "tensor" }, 0, 0);
 * x.write(scope, Tensor.scalar(3, "float32"));
 * assertEquals(x.tensor(scope).item(0), 3);
 * ```
 */
export class VarRef {
  /** The variable's name. */
  readonly name: string;
  /** What is statically known of it. */
  readonly info: VarInfo;
  /** How many parents up its scope is. */
  readonly depth: number;
  /** Its slot in that scope. */
  readonly slot: number;

  /**
   * Makes a reference.
   *
   * @param info The variable's static info.
   * @param depth Parents up.
   * @param slot Slot there.
   */
  constructor(info: VarInfo, depth: number, slot: number) {
    this.name = info.name;
    this.info = info;
    this.depth = depth;
    this.slot = slot;
  }

  /**
   * The scope that holds the variable, seen from `scope`.
   *
   * @param scope The op's scope.
   * @returns The declaring scope.
   */
  home(scope: Scope): Scope {
    let s = scope;
    for (let d = this.depth; d > 0; d--) s = s.parent!;
    return s;
  }

  /**
   * The variable's value, whatever it holds.
   *
   * @param scope The op's scope.
   * @returns The value.
   */
  read(scope: Scope): Value {
    return this.home(scope).values[this.slot];
  }

  /**
   * Binds the variable to a new value.
   *
   * @param scope The op's scope.
   * @param value The value.
   */
  write(scope: Scope, value: Value): void {
    this.home(scope).values[this.slot] = value;
  }

  /**
   * The tensor the variable holds.
   *
   * @param scope The op's scope.
   * @returns The tensor.
   */
  tensor(scope: Scope): Tensor {
    const v = this.read(scope);
    if (v instanceof Tensor) return v;
    throw this.#wrongKind(v, "a tensor");
  }

  /**
   * The channel the variable holds; `null` is the nil channel.
   *
   * @param scope The op's scope.
   * @returns The channel.
   */
  channel(scope: Scope): TensorChannel | null {
    const v = this.read(scope);
    if (v === null || v instanceof Channel || v instanceof SharedChannel) {
      return v;
    }
    throw this.#wrongKind(v, "a channel");
  }

  /**
   * The tensor array the variable holds.
   *
   * @param scope The op's scope.
   * @returns The array.
   */
  array(scope: Scope): TensorArray {
    const v = this.read(scope);
    if (v instanceof TensorArray) return v;
    throw this.#wrongKind(v, "a tensor array");
  }

  /**
   * The RAW string list the variable holds.
   *
   * @param scope The op's scope.
   * @returns The list.
   */
  raw(scope: Scope): RawValue {
    const v = this.read(scope);
    if (Array.isArray(v)) return v;
    throw this.#wrongKind(v, "a raw value");
  }

  #wrongKind(v: Value, wanted: string): Panic {
    if (v === undefined) {
      return new Panic(`variable "${this.name}" read before it was written`);
    }
    return new Panic(
      `variable "${this.name}" holds a ${kindOfValue(v)}, not ${wanted}`,
    );
  }
}
