/**
 * Channel ops with Go's semantics (docs/architecture.md §4): `channel_create`,
 * `channel_send`, `channel_recv`, `channel_close`. A channel carries
 * tensors; one made with a `data_type` other than 7 carries only that dtype,
 * and a send of another dtype panics naming both. A closed, drained channel
 * yields a zero tensor of the element type (float32 for an untyped
 * channel), shape [1], with Status false.
 *
 * Statically, a channel's type is its element type or none (any tensor):
 * `channel_create` makes the type its `data_type` names, which the Out
 * variable's declaration must not contradict, and `channel_recv`'s Out has
 * the element type the channel's declaration names.
 *
 * @module
 */
import type { DType } from "../../kernels/dtype.ts";
import { Tensor } from "../../kernels/tensor.ts";
import { blockForever } from "../../scheduler/block_forever.ts";
import {
  Channel,
  type ChannelOpOptions,
  closeChannel,
  type RecvResult,
} from "../../scheduler/channel.ts";
import { Panic } from "../../scheduler/panic.ts";
import { SharedChannel } from "../../scheduler/shared/shared_channel.ts";
import { dtypeOfCode } from "../core/dtype_codes.ts";
import type { TensorChannel, Value } from "../core/value.ts";
import { attr, defineOp, type OpDef, slot } from "../core/op_def.ts";
import { checkDTypeAttr, dtypeAttr } from "./values.ts";
import { poolOf } from "../core/_pool_services.ts";
import { channelTag } from "../../scheduler/shared/_channel_handle.ts";

/** `VarType.Type` LOD_TENSOR: a channel of any tensor. */
const ANY_TENSOR = 7;

// The element type of typed channels only; a miss means "any tensor".
const ELEMENT_TYPES = new WeakMap<Channel<Tensor>, DType>();

const TRUE = Tensor.fromArray([true], "bool", [1]);
const FALSE = Tensor.fromArray([false], "bool", [1]);

/**
 * Makes a channel of tensors as `channel_create` does.
 *
 * @param capacity The buffer size.
 * @param dtype The element type; `undefined` carries any tensor.
 * @returns The channel.
 *
 * @example Usage
 * ```ts
 * import { makeTensorChannel, sendTensor } from "./channel.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertThrows } from "@std/assert";
 *
 * const ch = makeTensorChannel(1, "int64");
 * assertThrows(() => sendTensor(ch, Tensor.scalar(1, "float32")));
 * ```
 */
export function makeTensorChannel(
  capacity: number,
  dtype?: DType,
): Channel<Tensor> {
  const ch = new Channel<Tensor>(capacity, {
    zero: Tensor.zeros([1], dtype ?? "float32"),
  });
  if (dtype !== undefined) ELEMENT_TYPES.set(ch, dtype);
  return ch;
}

/**
 * Panics if `ch` is typed and `x` has another dtype.
 *
 * @param ch The channel.
 * @param x The tensor about to be sent.
 *
 * @example Usage
 * ```ts
 * import { checkElementType, makeTensorChannel } from "./channel.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertThrows } from "@std/assert";
 *
 * assertThrows(() => checkElementType(makeTensorChannel(0, "int32"), Tensor.scalar(1, "float32")));
 * ```
 */
export function checkElementType(ch: TensorChannel, x: Tensor): void {
  checkDType(elementTypeOf(ch), x);
}

// The element type of `ch`; `undefined` for a channel of any tensor.
function elementTypeOf(ch: TensorChannel): DType | undefined {
  if (!(ch instanceof SharedChannel)) return ELEMENT_TYPES.get(ch);
  // The tag's low byte is the dtype; a recorded run keeps the channel's
  // index above it (runtime/core/schedule_channels.ts).
  const tag = channelTag(ch) & 0xff;
  return tag === 0 ? undefined : dtypeOfCode(tag - 1);
}

// Panics if `x` is not of `dtype` (`undefined`: any tensor will do).
function checkDType(dtype: DType | undefined, x: Tensor): void {
  if (dtype !== undefined && dtype !== x.dtype) {
    throw new Panic(`send of a tensor of ${x.dtype} on a channel of ${dtype}`);
  }
}

// What a prepared channel op has not seen yet: never a variable's value.
const UNSEEN: unique symbol = Symbol("unseen");

/**
 * The bool tensor a receive's Status gets.
 *
 * @param ok Whether the value came from a send.
 * @returns `[true]` or `[false]`, shared and immutable.
 *
 * @example Usage
 * ```ts
 * import { statusTensor } from "./channel.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(statusTensor(true).item(0), true);
 * ```
 */
export function statusTensor(ok: boolean): Tensor {
  return ok ? TRUE : FALSE;
}

/**
 * Sends `x` on a channel of tensors, panicking if the channel is typed and
 * `x` has another dtype; the nil channel blocks forever.
 *
 * @param ch The channel, or `null`.
 * @param x The tensor.
 * @param options The sending thread (a `ThreadContext` will do) and an
 * abort signal.
 * @returns `undefined` if the send completed, else a promise of it.
 *
 * @example Usage
 * ```ts
 * import { makeTensorChannel, sendTensor } from "./channel.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const ch = makeTensorChannel(1);
 * assertEquals(sendTensor(ch, Tensor.scalar(1, "float32")), undefined); // buffered
 * assertEquals(ch.len, 1);
 * ```
 */
export function sendTensor(
  ch: TensorChannel | null,
  x: Tensor,
  options?: ChannelOpOptions,
): void | Promise<void> {
  if (ch === null) return blockForever("chan send (nil chan)", options);
  checkElementType(ch, x);
  return ch.send(x, options);
}

const channelCreate = defineOp({
  type: "channel_create",
  summary: "Out = a new channel of capacity (0: unbuffered)",
  inputs: {},
  outputs: { Out: slot.channel() },
  attrs: { capacity: attr.int(0), data_type: attr.int(ANY_TENSOR) },
  check(a) {
    if (a.data_type !== ANY_TENSOR) checkDTypeAttr("data_type", a.data_type);
  },
  infer: ({ attrs }) => ({
    Out: attrs.data_type === ANY_TENSOR
      ? {}
      : { dtype: dtypeAttr(attrs.data_type) },
  }),
  prepare(ctx) {
    const { capacity, data_type } = ctx.attrs;
    const dtype = data_type === ANY_TENSOR ? undefined : dtypeAttr(data_type);
    const out = ctx.output("Out");
    return (scope, thread) =>
      out.write(
        scope,
        poolOf(thread.run)?.makeChannel(capacity, dtype) ??
          makeTensorChannel(capacity, dtype),
      );
  },
});

const channelSend = defineOp({
  type: "channel_send",
  impure: () => "sends on a channel",
  summary: "sends X on Channel; blocks until received or buffered",
  inputs: { Channel: slot.channel(), X: slot.tensor() },
  outputs: {},
  attrs: {},
  prepare(ctx) {
    const ch = ctx.input("Channel");
    const x = ctx.input("X");
    // The channel this op sent on last, checked to be one, and its element
    // type. A channel's type never changes, so an op sending on the same
    // channel pass after pass checks its kind and looks its type up once
    // (the lookup is a WeakMap's); any thread running the op may fill it,
    // as it holds only what the channel itself determines.
    let seen: Value | typeof UNSEEN = UNSEEN;
    let seenType: DType | undefined;
    // A parked send hands its outcome to the thread's block (resumeAs).
    return (scope, thread) => {
      let c = ch.read(scope) as TensorChannel | null;
      if (c !== seen) {
        c = ch.channel(scope);
        seenType = c === null ? undefined : elementTypeOf(c);
        seen = c;
      }
      const value = x.tensor(scope);
      const tracer = thread.run.tracer;
      if (tracer !== undefined && c instanceof Channel) {
        tracer.flows.sent(thread.thread, c, value);
      }
      // sendTensor's ladder, with the type known.
      if (c === null) {
        return blockForever("chan send (nil chan)", thread.resumeAs);
      }
      checkDType(seenType, value);
      return c.send(value, thread.resumeAs);
    };
  },
});

const channelRecv = defineOp({
  type: "channel_recv",
  impure: () => "receives from a channel",
  summary:
    "Out = a value received from Channel; Status = false once closed and drained",
  inputs: { Channel: slot.channel() },
  outputs: { Out: slot.tensor(), Status: slot.tensor({ optional: true }) },
  attrs: {},
  infer: ({ inputs }) => ({
    Out: { dtype: inputs("Channel")[0]?.dtype },
    Status: { dtype: "bool", shape: [1] },
  }),
  prepare(ctx) {
    const ch = ctx.input("Channel");
    const out = ctx.output("Out");
    const status = ctx.optionalOutput("Status");
    // A parked receive returns PARKED (local or shared alike);
    // `resume` stores what it delivers (no `.then` per parked receiver).
    // The channel this op received from last, checked to be one.
    let seen: Value | typeof UNSEEN = UNSEEN;
    if (status === undefined) {
      return {
        run(scope, thread) {
          let c = ch.read(scope) as TensorChannel | null;
          if (c !== seen) seen = c = ch.channel(scope);
          if (c === null) {
            return blockForever("chan receive (nil chan)", thread.parkAs);
          }
          const value = c.recv(thread.resumeAs);
          if (value instanceof Promise) return value;
          thread.run.tracer?.flows.received(thread.thread, c, value);
          out.write(scope, value);
        },
        resume(scope, value, thread) {
          thread.run.tracer?.flows.received(
            thread.thread,
            ch.channel(scope)!,
            value,
          );
          out.write(scope, value as Value);
        },
      };
    }
    return {
      run(scope, thread) {
        let c = ch.read(scope) as TensorChannel | null;
        if (c !== seen) seen = c = ch.channel(scope);
        if (c === null) {
          return blockForever("chan receive (nil chan)", thread.parkAs);
        }
        if (c instanceof SharedChannel || (c.len === 0 && !c.closed)) {
          // May wait, or take a waiting sender's value.
          const got = c.recvOk(thread.resumeAs);
          if (got instanceof Promise) return got;
          thread.run.tracer?.flows.received(thread.thread, c, got.value);
          out.write(scope, got.value);
          status.write(scope, statusTensor(got.ok));
          return;
        }
        // A buffered value, ok; or, closed and drained, the zero value,
        // not ok. Either way the receive completes at once and needs no
        // { value, ok } record.
        const ok = c.len > 0;
        const value = c.recv(thread.resumeAs) as Value;
        thread.run.tracer?.flows.received(thread.thread, c, value);
        out.write(scope, value);
        status.write(scope, statusTensor(ok));
      },
      resume(scope, value, thread) {
        const got = value as RecvResult<Value>;
        thread.run.tracer?.flows.received(
          thread.thread,
          ch.channel(scope)!,
          got.value,
        );
        out.write(scope, got.value);
        status.write(scope, statusTensor(got.ok));
      },
    };
  },
});

const channelClose = defineOp({
  type: "channel_close",
  impure: () => "closes a channel",
  summary: "closes Channel",
  inputs: { Channel: slot.channel() },
  outputs: {},
  attrs: {},
  prepare(ctx) {
    const ch = ctx.input("Channel");
    return (scope) => {
      const c = ch.channel(scope);
      if (c instanceof SharedChannel) c.close();
      else closeChannel(c);
    };
  },
});

/**
 * The channel ops.
 *
 * @example Usage
 * ```ts
 * import { CHANNEL_OPS } from "./channel.ts";
 * import { assert } from "@std/assert";
 *
 * assert(CHANNEL_OPS.some((def) => def.type === "channel_send"));
 * ```
 */
export const CHANNEL_OPS: readonly OpDef[] = [
  channelCreate,
  channelSend,
  channelRecv,
  channelClose,
];
