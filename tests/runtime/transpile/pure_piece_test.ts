// Which pieces a transpiled master may retry: those whose ops are all
// pure; the master's send says so with retry=true.

import { assertEquals } from "@std/assert";
import {
  assignValue,
  dropout,
  mul,
  print,
  Program,
  read,
  transpile,
  uniformRandom,
} from "../../../mod.ts";
import { readAttrs } from "../../../runtime/core/attr_read.ts";
import { OPS } from "../../../runtime/ops/mod.ts";
import { impurityOf } from "../../../runtime/transpile/pure_piece.ts";

function sendRetry(build: () => void): unknown {
  const p = new Program();
  p.guard(build);
  const { master } = transpile(p.desc);
  const send = master.blocks[1].ops.find((op) => op.type === "send")!;
  return readAttrs(OPS.get("send")!.attrs, send.attrs).retry;
}

Deno.test("transpile() marks the sends of a pure piece retry=true", () => {
  const retry = sendRetry(() => {
    const [x] = read("x.npy");
    print(mul(x, assignValue([1, 2, 3, 4], { shape: [2, 2] })));
  });
  assertEquals(retry, true);
});

Deno.test("transpile() leaves retry false when a piece draws random numbers", () => {
  const retry = sendRetry(() => {
    const [x] = read("x.npy");
    print(dropout(mul(x, assignValue([1, 2, 3, 4], { shape: [2, 2] })), 0.5));
  });
  assertEquals(retry, false);
});

Deno.test("impurityOf() judges each op by its attributes", () => {
  const p = new Program();
  p.guard(() => {
    uniformRandom({ shape: [2], seed: 7 });
    uniformRandom({ shape: [2] });
  });
  const ops = p.desc.blocks[0].ops;
  assertEquals(impurityOf(ops.slice(0, 1), 0), undefined);
  assertEquals(
    impurityOf(ops, 0),
    "block 0 op 1 (uniform_random) draws from the run's random stream",
  );
});
