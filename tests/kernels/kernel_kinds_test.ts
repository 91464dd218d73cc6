import { assertEquals } from "@std/assert";
import {
  ACTIVATION_KINDS,
  BINARY_KINDS,
  COMPARE_KINDS,
  LOGICAL_KINDS,
  POOL_KINDS,
  REDUCE_KINDS,
  UNARY_KINDS,
} from "../../kernels/kernel_kinds.ts";

Deno.test("the kind lists name each kind once", () => {
  const lists = [
    BINARY_KINDS,
    COMPARE_KINDS,
    LOGICAL_KINDS,
    UNARY_KINDS,
    REDUCE_KINDS,
    POOL_KINDS,
    ACTIVATION_KINDS,
  ];
  for (const list of lists) assertEquals(new Set(list).size, list.length);
  assertEquals(lists.map((l) => l.length), [9, 6, 3, 14, 5, 2, 10]);
});
