// The PIR op table against Rill's op table: every slot and attribute a
// rule names exists on the Rill op it maps to, so a converted op never
// fails validation for a name the table got wrong.

import { assert, assertEquals } from "@std/assert";
import { OPS, PIR_OP_NAMES, pirOpRule } from "../../../mod.ts";

Deno.test("PIR_OP_NAMES: every rule names a Rill op, its slots and its attributes", () => {
  const wrong: string[] = [];
  for (const name of PIR_OP_NAMES) {
    const rule = pirOpRule(name)!;
    if (!("type" in rule)) continue;
    const def = OPS.get(rule.type);
    if (def === undefined) {
      wrong.push(`${name}: no op ${rule.type}`);
      continue;
    }
    for (const input of rule.inputs) {
      const slot = typeof input === "string" ? input : input.slot;
      if (slot !== undefined && !(slot in def.inputs)) {
        wrong.push(`${name}: ${rule.type} has no input ${slot}`);
      }
      if (typeof input !== "string" && !(input.attr in def.attrs)) {
        wrong.push(`${name}: ${rule.type} has no attribute ${input.attr}`);
      }
    }
    for (const output of rule.outputs) {
      if (!(output in def.outputs)) {
        wrong.push(`${name}: ${rule.type} has no output ${output}`);
      }
    }
    for (const to of Object.values(rule.attrs ?? {})) {
      if (to !== null && !(to in def.attrs)) {
        wrong.push(`${name}: ${rule.type} has no attribute ${to}`);
      }
    }
  }
  assertEquals(wrong, []);
});

Deno.test("pirOpRule() reads an in-place form as its plain form, and not the specials'", () => {
  assertEquals(pirOpRule("1.relu_"), pirOpRule("1.relu"));
  assertEquals(pirOpRule("1.batch_norm_"), pirOpRule("1.batch_norm"));
  assertEquals(pirOpRule("1.data_"), undefined);
  assertEquals(pirOpRule("1.no_such_op"), undefined);
  assertEquals(pirOpRule("toString"), undefined);
});

Deno.test("PIR_OP_NAMES covers every op of the classifier and the tiny programs", () => {
  const used = [
    "p",
    "1.data",
    "1.fetch",
    "1.full",
    "1.full_int_array",
    "1.if",
    "2.yield",
    "1.conv2d",
    "1.depthwise_conv2d",
    "1.batch_norm_",
    "1.hardswish",
    "1.hardsigmoid",
    "1.pool2d",
    "1.reshape",
    "1.flatten",
    "1.matmul",
    "1.softmax",
    "1.add",
    "1.multiply",
    "1.relu",
    "1.scale",
    "1.equal",
    "1.thresholded_relu",
  ];
  for (const name of used) assert(pirOpRule(name) !== undefined, name);
});
