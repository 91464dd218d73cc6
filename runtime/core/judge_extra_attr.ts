/**
 * Judging one stored attribute by Paddle's extra-attribute table
 * (`paddle_extra_attrs.ts`): neutral, not neutral (with its value as
 * messages show it), stored in a type its rule does not take, or not an
 * extra attribute at all; and writing one, for the builder. The reader
 * (`attr_read.ts`), the printer (`dump.ts`) and the builder
 * (`encodeAttrs`) call these, so all three say the same of every value.
 *
 * @module
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  AttrType,
  type OpDesc_Attr,
  OpDesc_AttrSchema,
} from "../../gen/rill/v1/framework_pb.ts";
import { formatFloat } from "../../kernels/tensor_format.ts";
import {
  type ExtraAttrNeutral,
  type ExtraAttrRule,
  extraAttrRule,
} from "./paddle_extra_attrs.ts";
/**
 * What the table says of one stored attribute, by `kind`:
 *   - `not_extra`: no rule covers the name;
 *   - `neutral`: a rule covers it and its value changes nothing;
 *   - `wrong_type`: stored in a type the rule does not take (`expected`);
 *   - `not_neutral`: any other value; `value` is it as messages show it.
 */
export type ExtraAttrVerdict =
  | { readonly kind: "not_extra" }
  | { readonly kind: "neutral"; readonly rule: ExtraAttrRule }
  | {
    readonly kind: "wrong_type";
    readonly rule: ExtraAttrRule;
    readonly expected: readonly AttrType[];
  }
  | {
    readonly kind: "not_neutral";
    readonly rule: ExtraAttrRule;
    readonly value: string;
  };

/**
 * Judges one stored attribute by `PADDLE_EXTRA_ATTRS`. The caller has
 * checked that the op's schema does not declare the name.
 *
 * @param a The attribute as saved.
 * @returns The verdict.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { AttrType, OpDesc_AttrSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { judgeExtraAttr } from "./judge_extra_attr.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const attr = (name: string, b: boolean) =>
 *   create(OpDesc_AttrSchema, { name, type: AttrType.BOOLEAN, b });
 * assertEquals(judgeExtraAttr(attr("fuse_relu", false)).kind, "neutral");
 * const fused = judgeExtraAttr(attr("fuse_relu", true));
 * assertEquals(fused.kind === "not_neutral" && fused.value, "true");
 * assertEquals(judgeExtraAttr(attr("colour", true)).kind, "not_extra");
 * ```
 */
export function judgeExtraAttr(a: OpDesc_Attr): ExtraAttrVerdict {
  const rule = extraAttrRule(a.name);
  if (rule === undefined) return { kind: "not_extra" };
  if (rule.types !== undefined && !rule.types.includes(a.type)) {
    return { kind: "wrong_type", rule, expected: rule.types };
  }
  if (isNeutral(rule.neutral, a)) return { kind: "neutral", rule };
  return { kind: "not_neutral", rule, value: shownValue(a) };
}

/**
 * The neutral values of a rule as messages name them; for `off`, the one
 * of the stored attribute's type.
 *
 * @param rule The rule.
 * @param type The stored type.
 * @returns `false`, `"float32" or ""`, `[]`.
 *
 * @example Usage
 * ```ts
 * import { AttrType } from "../../gen/rill/v1/framework_pb.ts";
 * import { extraAttrRule } from "./paddle_extra_attrs.ts";
 * import { neutralText } from "./judge_extra_attr.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(neutralText(extraAttrRule("fuse_activation")!, AttrType.STRING), '""');
 * assertEquals(neutralText(extraAttrRule("x_data_format")!, AttrType.STRING), '"" or "AnyLayout"');
 * ```
 */
export function neutralText(rule: ExtraAttrRule, type: AttrType): string {
  const neutral = rule.neutral;
  switch (neutral.kind) {
    case "any":
      return "any value";
    case "empty":
      return "[]";
    case "off":
      return type === AttrType.STRING
        ? '""'
        : type === AttrType.BOOLEAN
        ? "false"
        : "any number";
    case "one_of":
      return neutral.values.map((v) => JSON.stringify(v)).join(" or ");
  }
}

/**
 * An extra attribute as the builder writes it: the stored type is the
 * first of the rule's types that holds the value (a boolean, a string, a
 * number: an INT when the rule takes one and the number is whole, else a
 * FLOAT; or a list of them).
 *
 * @param name The attribute's name.
 * @param value Its value.
 * @returns The attribute, or `undefined` when no rule covers the name.
 * @throws {TypeError} If the value is not neutral or fits none of the
 * rule's types; the message starts `attribute "<name>": `.
 *
 * @example Usage
 * ```ts
 * import { AttrType } from "../../gen/rill/v1/framework_pb.ts";
 * import { encodeExtraAttr } from "./judge_extra_attr.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * const a = encodeExtraAttr("scale_y", [1])!;
 * assertEquals([a.type, a.floats], [AttrType.FLOATS, [1]]);
 * assertEquals(encodeExtraAttr("colour", 1), undefined);
 * assertThrows(() => encodeExtraAttr("use_addto", true), TypeError, 'attribute "use_addto": true asks for');
 * ```
 */
export function encodeExtraAttr(
  name: string,
  value: number | string | boolean | readonly (number | string | boolean)[],
): OpDesc_Attr | undefined {
  const rule = extraAttrRule(name);
  if (rule === undefined) return undefined;
  const a = storedAs(name, value, rule.types);
  if (a === undefined) {
    throw new TypeError(
      `attribute "${name}": ${JSON.stringify(value)} fits none of its types`,
    );
  }
  const verdict = judgeExtraAttr(a);
  if (verdict.kind === "not_neutral") {
    throw new TypeError(
      `attribute "${name}": ${
        notNeutralDetail(verdict.rule, a.type, verdict.value)
      }`,
    );
  }
  return a;
}

/**
 * What is wrong with a value that is not neutral, as an error's detail
 * after the attribute's name: `true asks for …; Rill accepts only false`.
 *
 * @param rule The attribute's rule.
 * @param type Its stored type.
 * @param value Its value, as shown.
 * @returns The detail.
 *
 * @example Usage
 * ```ts
 * import { AttrType } from "../../gen/rill/v1/framework_pb.ts";
 * import { extraAttrRule } from "./paddle_extra_attrs.ts";
 * import { notNeutralDetail } from "./judge_extra_attr.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(
 *   notNeutralDetail(extraAttrRule("fuse_relu")!, AttrType.BOOLEAN, "true"),
 *   "true asks for an operation fused into the op; Rill accepts only false",
 * );
 * ```
 */
export function notNeutralDetail(
  rule: ExtraAttrRule,
  type: AttrType,
  value: string,
): string {
  return `${value} asks for ${rule.asks ?? "what Rill does not do"}; ` +
    `Rill accepts only ${neutralText(rule, type)}`;
}

function isNeutral(neutral: ExtraAttrNeutral, a: OpDesc_Attr): boolean {
  switch (neutral.kind) {
    case "any":
      return true;
    case "empty":
      return listLength(a) === 0;
    case "off":
      return a.type === AttrType.BOOLEAN
        ? !a.b
        : a.type === AttrType.STRING
        ? a.s === ""
        : a.type === AttrType.FLOAT || a.type === AttrType.INT;
    case "one_of": {
      const v = scalarOf(a);
      return v !== undefined && neutral.values.includes(v);
    }
  }
}

// A single stored value, for comparison with a rule's values.
function scalarOf(a: OpDesc_Attr): boolean | string | number | undefined {
  switch (a.type) {
    case AttrType.BOOLEAN:
      return a.b;
    case AttrType.STRING:
      return a.s;
    case AttrType.INT:
      return a.i;
    case AttrType.FLOAT:
      return a.f;
    case AttrType.LONG:
      return Number(a.l);
    case AttrType.FLOAT64:
      return a.float64;
  }
  return undefined;
}

function listLength(a: OpDesc_Attr): number | undefined {
  switch (a.type) {
    case AttrType.INTS:
      return a.ints.length;
    case AttrType.LONGS:
      return a.longs.length;
    case AttrType.FLOATS:
      return a.floats.length;
    case AttrType.STRINGS:
      return a.strings.length;
    case AttrType.BOOLEANS:
      return a.bools.length;
  }
  return undefined;
}

/** The most list items a message shows. */
const SHOWN_ITEMS = 8;

/** A stored value as messages show it: `true`, `"NHWC"`, `0.5`, `[1, 2]`. */
function shownValue(a: OpDesc_Attr): string {
  const float32 = (f: number) => formatFloat(Math.fround(f), "float32");
  const list = (items: readonly string[]) =>
    items.length <= SHOWN_ITEMS
      ? `[${items.join(", ")}]`
      : `[${items.slice(0, SHOWN_ITEMS).join(", ")}, … ${
        items.length - SHOWN_ITEMS
      } more]`;
  switch (a.type) {
    case AttrType.BOOLEAN:
      return String(a.b);
    case AttrType.STRING:
      return JSON.stringify(a.s);
    case AttrType.INT:
      return String(a.i);
    case AttrType.LONG:
      return String(a.l);
    case AttrType.FLOAT:
      return float32(a.f);
    case AttrType.FLOAT64:
      return formatFloat(a.float64, "float64");
    case AttrType.INTS:
      return list(a.ints.map(String));
    case AttrType.LONGS:
      return list(a.longs.map(String));
    case AttrType.FLOATS:
      return list(a.floats.map(float32));
    case AttrType.STRINGS:
      return list(a.strings.map((s) => JSON.stringify(s)));
    case AttrType.BOOLEANS:
      return list(a.bools.map(String));
  }
  return AttrType[a.type] ?? String(a.type);
}

/** The list types, in the order an empty list is stored in. */
const LIST_TYPES = [
  AttrType.INTS,
  AttrType.FLOATS,
  AttrType.STRINGS,
  AttrType.BOOLEANS,
  AttrType.LONGS,
] as const;

// The attribute holding `value` in the first of `types` (every type when
// undefined) that holds it.
function storedAs(
  name: string,
  value: number | string | boolean | readonly (number | string | boolean)[],
  types: readonly AttrType[] | undefined,
): OpDesc_Attr | undefined {
  const takes = (t: AttrType) => types === undefined || types.includes(t);
  const make = (init: MessageInitShape<typeof OpDesc_AttrSchema>) =>
    create(OpDesc_AttrSchema, { name, ...init });
  if (typeof value === "boolean") {
    return takes(AttrType.BOOLEAN)
      ? make({ type: AttrType.BOOLEAN, b: value })
      : undefined;
  }
  if (typeof value === "string") {
    return takes(AttrType.STRING)
      ? make({ type: AttrType.STRING, s: value })
      : undefined;
  }
  if (typeof value === "number") {
    if (Number.isInteger(value) && takes(AttrType.INT)) {
      return make({ type: AttrType.INT, i: value });
    }
    return takes(AttrType.FLOAT)
      ? make({ type: AttrType.FLOAT, f: Math.fround(value) })
      : undefined;
  }
  if (value.length === 0) {
    const list = LIST_TYPES.find(takes);
    return list === undefined ? undefined : make({ type: list });
  }
  if (value.every((v) => typeof v === "string")) {
    return takes(AttrType.STRINGS)
      ? make({ type: AttrType.STRINGS, strings: [...value] as string[] })
      : undefined;
  }
  if (value.every((v) => typeof v === "boolean")) {
    return takes(AttrType.BOOLEANS)
      ? make({ type: AttrType.BOOLEANS, bools: [...value] as boolean[] })
      : undefined;
  }
  const numbers = value as readonly number[];
  if (numbers.every(Number.isInteger) && takes(AttrType.INTS)) {
    return make({ type: AttrType.INTS, ints: [...numbers] });
  }
  return takes(AttrType.FLOATS)
    ? make({ type: AttrType.FLOATS, floats: numbers.map(Math.fround) })
    : undefined;
}
