// The extra-attribute table: well formed, covering the names issue 19
// lists, and looked up by exact name before family.

import { assert, assertEquals } from "@std/assert";
import { AttrType } from "../../../gen/rill/v1/framework_pb.ts";
import {
  extraAttrRule,
  PADDLE_EXTRA_ATTRS,
} from "../../../runtime/core/paddle_extra_attrs.ts";

Deno.test("PADDLE_EXTRA_ATTRS names each rule once, and says what a refused value asks for", () => {
  const names = PADDLE_EXTRA_ATTRS.map((rule) => rule.name);
  assertEquals(names.length, new Set(names).size);
  for (const rule of PADDLE_EXTRA_ATTRS) {
    assert(rule.meaning !== "", rule.name);
    assert(!rule.name.slice(0, -1).includes("*"), rule.name);
    assert(rule.name !== "*", "a family needs a prefix");
    if (rule.neutral.kind !== "any") assert(rule.asks !== undefined, rule.name);
  }
});

Deno.test("PADDLE_EXTRA_ATTRS's neutral values are of the types their rules take", () => {
  const typeOf = (v: boolean | string | number) =>
    typeof v === "boolean"
      ? AttrType.BOOLEAN
      : typeof v === "string"
      ? AttrType.STRING
      : AttrType.INT;
  for (const rule of PADDLE_EXTRA_ATTRS) {
    if (rule.neutral.kind !== "one_of") continue;
    for (const v of rule.neutral.values) {
      assert(rule.types?.includes(typeOf(v)), `${rule.name}: ${v}`);
    }
  }
});

Deno.test("extraAttrRule() covers every hint issue 19 lists, by name or family", () => {
  const covered: [string, string][] = [
    ["use_mkldnn", "use_mkldnn"],
    ["mkldnn_data_type", "mkldnn_data_type"],
    ["use_cudnn", "use_cudnn"],
    ["use_quantizer", "use_quantizer"],
    ["scale_x", "scale_*"],
    ["scale_y", "scale_*"],
    ["scale_out", "scale_*"],
    ["Scale_in_eltwise", "Scale_*"],
    ["force_fp32_output", "force_fp32_output"],
    ["fuse_relu_before_depthwise_conv", "fuse_*"],
    ["fuse_with_relu", "fuse_*"],
    ["fused_reshape_Out", "fused_reshape_*"],
    ["fused_transpose_X", "fused_transpose_*"],
    ["workspace_size_MB", "workspace_size_MB"],
    ["exhaustive_search", "exhaustive_search"],
    ["use_addto", "use_addto"],
    ["is_test", "is_test"],
    ["op_callstack", "op_callstack"],
  ];
  assertEquals(
    covered.map(([name]) => [name, extraAttrRule(name)?.name]),
    covered,
  );
});

Deno.test("extraAttrRule() covers no op's own attributes: a family needs more than its prefix", () => {
  for (const name of ["scale", "fuse_", "axis", "data_layout", "seed"]) {
    assertEquals(extraAttrRule(name), undefined, name);
  }
});
