// The layers of a Paddle inference program built in TensorFlow.js, for the
// benchmarks that time a model beside TensorFlow.js: block 0's ops, one
// tfjs op (or a few) each, in TensorFlow.js's own layout, NHWC, with the
// program's parameters as tfjs tensors made once. Only the ops and
// attribute values the shared MobileNetV3 uses are taken; any other is an
// error naming it, so the comparison never times a different network.
//
// Layout: every rank-4 value lives as NHWC; a reshape or flatten that
// changes rank goes through NCHW, so shapes mean what the program says.
// A conv filter [O, I/g, kh, kw] becomes HWIO, a depthwise one
// [C, 1, kh, kw] becomes [kh, kw, C, 1].
// deno-lint-ignore-file no-import-prefix

import * as tf from "npm:@tensorflow/tfjs-core@4.22.0";
import type { OpDesc, ProgramDesc } from "../mod.ts";
import type { Tensor } from "../kernels/tensor.ts";

type Attr = string | number | boolean | number[];

// An op's attributes by name, as plain values (by AttrType: INT, FLOAT,
// STRING, INTS, FLOATS, BOOLEAN; others are not read here).
function attrsOf(op: OpDesc): Map<string, Attr> {
  const found = new Map<string, Attr>();
  for (const a of op.attrs) {
    const value = [a.i, a.f, a.s, a.ints, a.floats, undefined, a.b][a.type];
    if (value !== undefined) found.set(a.name, value as Attr);
  }
  return found;
}

function slot(vars: OpDesc["inputs"], name: string): string | undefined {
  return vars.find((v) => v.parameter === name)?.arguments[0];
}

const toNchw = (t: tf.Tensor) =>
  t.rank === 4 ? tf.transpose(t, [0, 3, 1, 2]) : t;
const toNhwc = (t: tf.Tensor) =>
  t.rank === 4 ? tf.transpose(t, [0, 2, 3, 1]) : t;

// A reshape in NCHW terms: 0 copies a dim, -1 infers one.
function reshaped(x: tf.Tensor, shape: readonly number[]): tf.Tensor {
  const from = toNchw(x);
  const dims = shape.map((d, i) => d === 0 ? from.shape[i] : d);
  return toNhwc(tf.reshape(from, dims));
}

/**
 * Builds a program's forward pass in TensorFlow.js on the current backend.
 *
 * @param desc The program.
 * @param parameters Its parameters.
 * @returns The pass: an NHWC input to the first fetch target, and a
 * dispose for the weights.
 */
export function tfjsProgram(
  desc: ProgramDesc,
  parameters: ReadonlyMap<string, Tensor>,
): { run: (x: tf.Tensor) => tf.Tensor; dispose: () => void } {
  const ops = desc.blocks[0].ops;
  const weights = new Map<string, tf.Tensor>();
  for (const op of ops) {
    if (op.type !== "conv2d" && op.type !== "depthwise_conv2d") continue;
    const name = slot(op.inputs, "Filter")!;
    const p = parameters.get(name)!;
    const f = tf.tensor(p.data as Float32Array, [...p.shape]);
    const depthwise = p.shape[1] === 1 && Number(attrsOf(op).get("groups")) > 1;
    weights.set(name, tf.transpose(f, depthwise ? [2, 3, 0, 1] : [2, 3, 1, 0]));
    f.dispose();
  }
  for (const [name, p] of parameters) {
    if (!weights.has(name)) {
      weights.set(name, tf.tensor(p.data as Float32Array, [...p.shape]));
    }
  }
  const run = (x: tf.Tensor) =>
    tf.tidy(() => {
      const env = new Map<string, tf.Tensor>(weights);
      let result: tf.Tensor | undefined;
      for (const op of ops) {
        const a = attrsOf(op);
        const input = (s: string) => env.get(slot(op.inputs, s)!)!;
        const out = (s: string, t: tf.Tensor) =>
          env.set(slot(op.outputs, s)!, t);
        switch (op.type) {
          case "feed":
            out("Out", x);
            break;
          case "fetch":
            result ??= input("X");
            break;
          case "conv2d":
          case "depthwise_conv2d": {
            const p = a.get("paddings") as number[];
            const [pt, pb, pl, pr] = p.length === 2
              ? [p[0], p[0], p[1], p[1]]
              : p;
            const pad: [
              [number, number],
              [number, number],
              [number, number],
              [number, number],
            ] = [[0, 0], [pt, pb], [
              pl,
              pr,
            ], [0, 0]];
            const strides = a.get("strides") as [number, number];
            const dilations = a.get("dilations") as [number, number];
            const f = input("Filter") as tf.Tensor4D;
            const xin = input("Input") as tf.Tensor4D;
            const groups = Number(a.get("groups"));
            out(
              "Output",
              groups === 1
                ? tf.conv2d(xin, f, strides, pad, "NHWC", dilations)
                : tf.depthwiseConv2d(xin, f, strides, pad, "NHWC", dilations),
            );
            break;
          }
          case "batch_norm":
            out(
              "Y",
              tf.batchNorm(
                input("X"),
                input("Mean") as tf.Tensor1D,
                input("Variance") as tf.Tensor1D,
                input("Bias") as tf.Tensor1D,
                input("Scale") as tf.Tensor1D,
                Number(a.get("epsilon")),
              ),
            );
            break;
          case "relu":
            out("Out", tf.relu(input("X")));
            break;
          case "hard_swish": {
            const v = input("X");
            const gate = tf.clipByValue(
              tf.add(v, Number(a.get("offset"))),
              0,
              Number(a.get("threshold")),
            );
            out("Out", tf.div(tf.mul(v, gate), Number(a.get("scale"))));
            break;
          }
          case "hard_sigmoid":
            out(
              "Out",
              tf.clipByValue(
                tf.add(
                  tf.mul(input("X"), Number(a.get("slope"))),
                  Number(a.get("offset")),
                ),
                0,
                1,
              ),
            );
            break;
          case "pool2d": {
            const ksize = a.get("ksize") as number[];
            if (
              a.get("pooling_type") !== "avg" || a.get("adaptive") !== true ||
              ksize[0] !== 1 || ksize[1] !== 1
            ) {
              throw new Error("tfjsProgram: only adaptive 1×1 avg pool2d");
            }
            out("Out", tf.mean(input("X"), [1, 2], true));
            break;
          }
          case "reshape2":
            out("Out", reshaped(input("X"), a.get("shape") as number[]));
            break;
          case "flatten_contiguous_range": {
            const v = toNchw(input("X"));
            const [start, stop] = [
              Number(a.get("start_axis")),
              Number(a.get("stop_axis")),
            ];
            const dims = [
              ...v.shape.slice(0, start),
              v.shape.slice(start, stop + 1).reduce((p, d) => p * d, 1),
              ...v.shape.slice(stop + 1),
            ];
            out("Out", toNhwc(tf.reshape(v, dims)));
            break;
          }
          case "elementwise_add":
          case "elementwise_mul": {
            const [l, r] = [input("X"), input("Y")];
            if (l.rank !== r.rank && !(l.rank === 2 && r.rank === 1)) {
              throw new Error(
                `tfjsProgram: ${op.type} of ranks ${l.rank}, ${r.rank}`,
              );
            }
            out(
              "Out",
              op.type === "elementwise_add" ? tf.add(l, r) : tf.mul(l, r),
            );
            break;
          }
          case "dropout":
            out(
              "Out",
              a.get("dropout_implementation") === "upscale_in_train"
                ? input("X")
                : tf.mul(input("X"), 1 - Number(a.get("dropout_prob"))),
            );
            break;
          case "matmul_v2":
            out(
              "Out",
              tf.matMul(
                input("X") as tf.Tensor2D,
                input("Y") as tf.Tensor2D,
                a.get("trans_x") === true,
                a.get("trans_y") === true,
              ),
            );
            break;
          case "softmax":
            out("Out", tf.softmax(input("X")));
            break;
          case "scale": {
            const [s, b] = [Number(a.get("scale")), Number(a.get("bias"))];
            const v = input("X");
            out(
              "Out",
              a.get("bias_after_scale") === false
                ? tf.mul(tf.add(v, b), s)
                : tf.add(tf.mul(v, s), b),
            );
            break;
          }
          default:
            throw new Error(`tfjsProgram: no tfjs layer for ${op.type}`);
        }
      }
      if (result === undefined) throw new Error("tfjsProgram: no fetch op");
      return result;
    });
  return {
    run,
    dispose: () => weights.forEach((t) => t.dispose()),
  };
}
