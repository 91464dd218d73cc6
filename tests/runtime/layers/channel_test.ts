// The channel builders (`makeChannel`, `send`, `recv`, `recvOk`,
// `closeChannel`): what each appends to the program, and a program that
// ranges over a channel until it closes.

import { assertEquals } from "@std/assert";
import {
  closeChannel,
  elementwiseAdd,
  fillConstant,
  forRange,
  go,
  makeChannel,
  print,
  Program,
  recv,
  recvOk,
  send,
  VarType_Type,
  whileLoop,
} from "../../../mod.ts";
import { attrOf } from "../../_helpers/attr_of.ts";
import { int64 } from "../../_helpers/int64.ts";
import { runProgram } from "../../_helpers/run_program.ts";
import { slotsOf } from "../../_helpers/slots_of.ts";

Deno.test("makeChannel() declares a channel and appends channel_create", () => {
  const p = new Program();
  const [typed, any] = p.guard(() => [
    makeChannel({ capacity: 10, dtype: "int64", name: "jobs" }),
    makeChannel(),
  ]);
  const block = p.desc.blocks[0];
  assertEquals([typed.name, typed.kind, typed.dtype], [
    "jobs",
    "channel",
    "int64",
  ]);
  const decl = block.vars.find((v) => v.name === "jobs")!;
  assertEquals(decl.type?.type, VarType_Type.CHANNEL);
  assertEquals(decl.type?.channel?.dataType, VarType_Type.INT64);
  assertEquals(decl.type?.channel?.capacity, 10n);
  const [create0, create1] = block.ops;
  assertEquals(create0.type, "channel_create");
  assertEquals(slotsOf(create0.outputs), { Out: ["jobs"] });
  assertEquals(attrOf(create0, "capacity").i, 10);
  assertEquals(attrOf(create0, "data_type").i, VarType_Type.INT64);
  // Without a dtype: a channel of any tensor, said in the declaration and
  // in the op alike (LOD_TENSOR, 7), never float32.
  assertEquals([any.kind, any.dtype], ["channel", undefined]);
  const anyDecl = block.vars.find((v) => v.name === any.name)!;
  assertEquals(anyDecl.type?.channel?.dataType, VarType_Type.LOD_TENSOR);
  assertEquals(create1.attrs.map((a) => a.name), ["data_type"]);
  assertEquals(attrOf(create1, "data_type").i, VarType_Type.LOD_TENSOR);
});

Deno.test("send(), recv(), recvOk() and closeChannel() fill the channel slots", () => {
  const p = new Program();
  const names = p.guard(() => {
    const ch = makeChannel({ capacity: 1, name: "ch" });
    const x = fillConstant({ shape: [1], value: 1 });
    send(ch, x);
    const v = recv(ch);
    const [w, ok] = recvOk(ch);
    closeChannel(ch);
    return { x: x.name, v: v.name, w: w.name, ok: ok.name, okType: ok.dtype };
  });
  const [, , sendOp, recvOp, recvOkOp, closeOp] = p.desc.blocks[0].ops;
  assertEquals(sendOp.type, "channel_send");
  assertEquals(slotsOf(sendOp.inputs), { Channel: ["ch"], X: [names.x] });
  assertEquals(recvOp.type, "channel_recv");
  assertEquals(slotsOf(recvOp.inputs), { Channel: ["ch"] });
  assertEquals(slotsOf(recvOp.outputs), { Out: [names.v] });
  assertEquals(slotsOf(recvOkOp.outputs), {
    Out: [names.w],
    Status: [names.ok],
  });
  assertEquals(names.okType, "bool");
  assertEquals(closeOp.type, "channel_close");
  assertEquals(slotsOf(closeOp.inputs), { Channel: ["ch"] });
});

Deno.test("recvOk() and closeChannel() range over a channel until it closes", async () => {
  const { lines } = await runProgram(() => {
    const ch = makeChannel({ capacity: 4, dtype: "int64" });
    go(() => {
      forRange(5, (i) => send(ch, i));
      closeChannel(ch);
    });
    const total = int64(0);
    const [v, ok] = recvOk(ch);
    whileLoop(ok, () => {
      elementwiseAdd(total, v, { out: total });
      recv(ch, { out: v, status: ok });
    });
    print(total, { message: "total" });
    print(ok, { message: "ok" });
  });
  assertEquals(lines, ["total 10", "ok false"]);
});
