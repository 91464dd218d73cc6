// The CPU device: the reference implementation of every kernel.

import type { Device } from "../device.ts";
import { activation } from "./activation.ts";
import { cast } from "./cast.ts";
import { conv2d, conv2dTranspose } from "./conv.ts";
import {
  binary,
  compare,
  logical,
  logicalNot,
  scale,
  unary,
} from "./elementwise.ts";
import { fill, gaussianRandom, range, uniformRandom } from "./fill.ts";
import { argMax, oneHot, topK } from "./indices.ts";
import { matmul, mul2d } from "./matmul.ts";
import { batchNorm, groupNorm, instanceNorm, layerNorm } from "./norm.ts";
import { pool2d } from "./pool.ts";
import { rnn } from "./rnn.ts";
import { addN, mean, reduce, softmax } from "./reduce.ts";
import {
  broadcastTo,
  concat,
  gather,
  reshape,
  slice,
  split,
  splitNearEqual,
  stack,
  transpose,
} from "./shape.ts";

/**
 * The CPU device. Its kernels define what every kernel means; other devices
 * are tested against them.
 *
 * @example Usage
 * ```ts
 * import { cpuDevice } from "./device.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[1, 2], [3, 4]], "float32");
 * assertEquals(cpuDevice.name, "cpu");
 * assertEquals(cpuDevice.kernels.reduce("sum", x).toNested(), [10]);
 * ```
 */
export const cpuDevice: Device = Object.freeze({
  name: "cpu",
  kernels: Object.freeze({
    binary,
    compare,
    logical,
    logicalNot,
    unary,
    scale,
    cast,
    reduce,
    softmax,
    addN,
    mean,
    mul2d,
    matmul,
    reshape,
    transpose,
    concat,
    stack,
    split,
    splitNearEqual,
    slice,
    gather,
    fill,
    range,
    uniformRandom,
    gaussianRandom,
    conv2d,
    conv2dTranspose,
    pool2d,
    batchNorm,
    layerNorm,
    instanceNorm,
    groupNorm,
    rnn,
    activation,
    broadcastTo,
    argMax,
    topK,
    oneHot,
  }),
});
