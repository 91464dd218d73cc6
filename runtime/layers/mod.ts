/**
 * Builder functions, one per operator (Fluid's `fluid.layers`): each appends
 * its op to the default program's current block and returns the output
 * variables, declared with the dtype and shape the op's `infer` gives.
 * Every function is a thin call of `appendLayer`, which reads the op's
 * registered definition; none repeats a slot or attribute list. One file per
 * op group, named as in `runtime/ops/`.
 *
 * @module
 */
export { appendLayer, type OutOptions } from "./append_layer.ts";
export * from "./values.ts";
export * from "./elementwise.ts";
export * from "./reduce.ts";
export * from "./shape.ts";
export * from "./array.ts";
export * from "./control_flow.ts";
export * from "./print.ts";
export * from "./channel.ts";
export * from "./go.ts";
export * from "./select.ts";
export * from "./timer.ts";
export * from "./data.ts";
export * from "./cluster.ts";
export * from "./rpc.ts";
export * from "./conv.ts";
export * from "./pool.ts";
export * from "./norm.ts";
export * from "./activation.ts";
export * from "./paddle_shape.ts";
export * from "./indices.ts";
export * from "./paddle_nn.ts";
