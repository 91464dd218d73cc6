/**
 * What a DeviceTensor (device_tensor.ts) passes to Tensor's constructor in
 * place of its elements, which are on a device until read back. Only those
 * two classes use it; it passes as a `TypedArray`, so that the public
 * constructor's signature names storage alone.
 *
 * @example Usage
 * ```ts
 * import { DeviceTensor } from "./device_tensor.ts";
 * import { assert } from "@std/assert";
 *
 * const home = { name: "toy", readBack: async () => {} };
 * assert(new DeviceTensor("float32", [2], home, null).size === 2);
 * ```
 */
export const ELEMENTS_ON_DEVICE: unique symbol = Symbol("elements on device");
