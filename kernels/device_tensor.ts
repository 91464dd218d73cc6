/**
 * Tensors whose elements live on a device (a GPU buffer) rather than in
 * host memory.
 *
 * A DeviceTensor is a Tensor: same dtype, shape and size, and as immutable.
 * Its `data` is absent until the elements are read back: reading `data`
 * before then throws {@linkcode ElementsOnDevice}, naming the tensor. The
 * runtime catches that where an op runs, reads back the op's inputs in one
 * batch ({@linkcode readBack}) and runs the op again, so only what needs
 * values pays for a read-back: an op with no kernel on the device, print,
 * a condition, a fetch.
 *
 * Invariants:
 *   `stored` never changes; once read back, `data` holds its elements.
 *   A device kernel reads `stored`, never `data`, so device work never
 *   waits for a read-back.
 *
 * @module
 */
import type { DType, TypedArray } from "./dtype.ts";
import { ELEMENTS_ON_DEVICE } from "./_elements_on_device.ts";
import { Tensor } from "./tensor.ts";

/** Where a device tensor's elements are, and how to bring them back. */
export interface DeviceHome {
  /** The device's name, for messages (`webgpu`). */
  readonly name: string;
  /**
   * Reads back the elements of `tensors` (all of this home), in as few
   * round trips as the device allows, and keeps them as their `data`.
   */
  readBack(tensors: readonly DeviceTensor[]): Promise<void>;
}

/**
 * Thrown by a device tensor's `data` before its elements are read back.
 */
export class ElementsOnDevice extends Error {
  /** The tensor read. */
  readonly tensor: DeviceTensor;

  /**
   * Makes the error for a read of `tensor`'s elements.
   *
   * @param tensor The tensor read.
   */
  constructor(tensor: DeviceTensor) {
    super(
      `a ${tensor.dtype} tensor of shape [${
        tensor.shape.join(", ")
      }] is on the ${tensor.home.name} device: read it back first`,
    );
    this.name = "ElementsOnDevice";
    this.tensor = tensor;
  }
}

/**
 * A tensor whose elements are on a device.
 *
 * @example Usage
 * ```ts
 * import { DeviceTensor, ElementsOnDevice, readBack } from "./device_tensor.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * // A make-believe device that holds its elements in a plain array.
 * const home = {
 *   name: "toy",
 *   async readBack(ts: readonly DeviceTensor[]) {
 *     for (const t of ts) t.keepHostData(new Float32Array(t.stored as number[]));
 *   },
 * };
 * const t = new DeviceTensor("float32", [2], home, [1.5, 2.5]);
 * assertThrows(() => t.data, ElementsOnDevice);
 * await readBack([t]);
 * assertEquals(t.toNested(), [1.5, 2.5]);
 * ```
 */
export class DeviceTensor extends Tensor {
  /** Where the elements are. */
  readonly home: DeviceHome;
  /** The device's own handle on the elements (a GPU tensor). */
  readonly stored: unknown;

  /**
   * Wraps elements that a device holds.
   *
   * @param dtype The element type.
   * @param shape The dims.
   * @param home The device.
   * @param stored The device's handle on the elements.
   */
  constructor(
    dtype: DType,
    shape: readonly number[],
    home: DeviceHome,
    stored: unknown,
  ) {
    super(dtype, shape, ELEMENTS_ON_DEVICE as unknown as TypedArray);
    this.home = home;
    this.stored = stored;
    // `data` becomes an accessor until the elements are read back: an
    // instance of its own shape, so host tensors keep theirs.
    Object.defineProperty(this, "data", {
      get: elementsOnDevice,
      configurable: true,
      enumerable: true,
    });
  }

  /** Whether the elements have been read back into `data`. */
  get onHost(): boolean {
    return Object.getOwnPropertyDescriptor(this, "data")?.get === undefined;
  }

  /**
   * Keeps the elements read back from the device as `data` (a device's
   * `readBack` calls this).
   *
   * @param data The elements, of `arrayType(dtype)` and `size` long.
   * @throws {RangeError} If the length is wrong.
   */
  keepHostData(data: TypedArray): void {
    if (data.length !== this.size) {
      throw new RangeError(
        `read back: ${data.length} elements for a tensor of ${this.size}`,
      );
    }
    Object.defineProperty(this, "data", {
      value: data,
      writable: false,
      enumerable: true,
      configurable: false,
    });
  }
}

function elementsOnDevice(this: DeviceTensor): never {
  throw new ElementsOnDevice(this);
}

/**
 * Reads back every device tensor among `values` that is not on the host
 * yet, one batch per device.
 *
 * @param values Tensors and other values; only device tensors matter.
 * @returns When all are on the host.
 *
 * @example Usage
 * ```ts
 * import { readBack } from "./device_tensor.ts";
 * import { Tensor } from "./tensor.ts";
 *
 * await readBack([Tensor.scalar(1, "int32"), undefined]); // nothing to do
 * ```
 */
export async function readBack(values: readonly unknown[]): Promise<void> {
  const byHome = new Map<DeviceHome, DeviceTensor[]>();
  for (const v of values) {
    if (!(v instanceof DeviceTensor) || v.onHost) continue;
    const group = byHome.get(v.home);
    if (group === undefined) byHome.set(v.home, [v]);
    else if (!group.includes(v)) group.push(v);
  }
  await Promise.all([...byHome].map(([home, ts]) => home.readBack(ts)));
}
