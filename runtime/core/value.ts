/**
 * The values a variable can hold while a program runs (docs/architecture.md §2):
 * an immutable `Tensor`, a shared `Channel` (or `null`, the nil channel), a
 * shared `TensorArray`, or an immutable RAW string list.
 *
 * @module
 */
import { Tensor } from "../../kernels/tensor.ts";
import { Channel } from "../../scheduler/channel.ts";
import { SharedChannel } from "../../scheduler/shared/shared_channel.ts";

/** A RAW value: a list of strings (a single string is a list of one). */
export type RawValue = readonly string[];

/**
 * A tensor array: a shared, growable list of tensors. Copying the variable
 * copies the reference; `write_to_array` stores into it in place. A run on
 * several workers keeps its arrays in shared memory (a subclass that
 * overrides every method), so that every worker sees one array.
 *
 * @example Usage
 * ```ts
 * import { TensorArray } from "./value.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const a = new TensorArray();
 * a.write(2, Tensor.scalar(1, "float32"));
 * assertEquals(a.length, 3);
 * ```
 */
export class TensorArray {
  // The items; holes are `undefined`.
  #items: (Tensor | undefined)[] = [];

  /** How many slots the array has. */
  get length(): number {
    return this.#items.length;
  }

  /**
   * Sets the number of slots: new slots are holes, dropped ones are gone.
   *
   * @param length The new length.
   */
  resize(length: number): void {
    this.#items.length = length;
  }

  /**
   * The items in order, holes as `undefined`: a copy.
   *
   * @returns The items.
   */
  snapshot(): (Tensor | undefined)[] {
    return Array.from(this.#items);
  }

  /**
   * Stores `t` at `index`, growing the array as needed.
   *
   * @param index Where; must be ≥ 0.
   * @param t The tensor.
   */
  write(index: number, t: Tensor): void {
    if (!Number.isInteger(index) || index < 0) {
      throw new RangeError(`write to array: index ${index} out of range`);
    }
    this.#items[index] = t;
  }

  /**
   * The tensor at `index`.
   *
   * @param index Where.
   * @returns The tensor.
   */
  read(index: number): Tensor {
    const t = this.#items[index];
    if (t === undefined) {
      throw new RangeError(
        `read from array: index ${index} out of range or empty (length ${this.length})`,
      );
    }
    return t;
  }
}

/** A channel of tensors: on one worker, or shared by a run's workers. */
export type TensorChannel = Channel<Tensor> | SharedChannel<Tensor>;

/** Any value a variable holds; `undefined`: a tensor not yet written. */
export type Value =
  | Tensor
  | TensorChannel
  | null
  | TensorArray
  | RawValue
  | undefined;

/**
 * A one-word name of a value's kind, for error messages.
 *
 * @param v The value.
 * @returns `tensor`, `channel`, `nil channel`, `tensor array`, `raw` or `unset`.
 *
 * @example Usage
 * ```ts
 * import { kindOfValue, TensorArray } from "./value.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(kindOfValue(new TensorArray()), "tensor array");
 * ```
 */
export function kindOfValue(v: Value): string {
  if (v === undefined) return "unset";
  if (v === null) return "nil channel";
  if (v instanceof Tensor) return "tensor";
  if (v instanceof Channel || v instanceof SharedChannel) return "channel";
  if (v instanceof TensorArray) return "tensor array";
  return "raw";
}
