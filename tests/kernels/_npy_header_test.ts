import { assertEquals, assertThrows } from "@std/assert";
import { pyRepr, PyTuple, readHeaderDict } from "../../kernels/_npy_header.ts";

const F4 = "'descr': '<f4', 'fortran_order': False";

Deno.test("readHeaderDict() reads NumPy's own headers, any key order, trailing commas or not", () => {
  for (
    const [text, shape] of [
      [`{${F4}, 'shape': (2, 3), }`, [2n, 3n]],
      [`{'shape': (4,), "fortran_order": False, 'descr': "<f4"}`, [4n]],
      [`{${F4}, 'shape': (), }          \n`, []],
      [`{${F4}, 'shape': (1_000, 2)}`, [1000n, 2n]],
    ] as const
  ) {
    assertEquals(readHeaderDict(text, 1).shape, shape);
  }
});

Deno.test("readHeaderDict() keeps the last of a repeated key, as Python's dict does", () => {
  const d = readHeaderDict(
    `{${F4}, 'shape': (2, 784), 'shape': (1, 1, 28, 28)}`,
    1,
  );
  assertEquals(d.shape, [1n, 1n, 28n, 28n]);
});

Deno.test("readHeaderDict() refuses what NumPy refuses", () => {
  for (
    const text of [
      `${F4}, 'shape': (2, 3)`, // no braces: a tuple, not a dict
      `{${F4}, 'shape': (2, 3), 'extra': 1}`, // an extra key
      `{${F4}}`, // a missing key
      `{${F4}, 'shape': (2.0, 3.0)}`, // floats
      `{${F4}, 'shape': (2,, 3)}`, // not a literal
      `{${F4}, 'shape': (2)}`, // an int, not a tuple
      `{${F4}, 'shape': [2, 3]}`, // a list, not a tuple
      `{${F4}, 'shape': (02, 3)}`, // a leading zero
      `{${F4}, 'shape': (2, 3)} x`, // text after the dict
      `{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}`, // not a bool
      `{'descr': 5, 'fortran_order': False, 'shape': (2,)}`, // not a string
    ]
  ) {
    assertThrows(() => readHeaderDict(text, 1), TypeError, "decode npy:", text);
  }
});

Deno.test("readHeaderDict() takes Python 2's long suffix in versions 1.0 and 2.0 only", () => {
  const text = `{${F4}, 'shape': (2L, 3L)}`;
  assertEquals(readHeaderDict(text, 2).shape, [2n, 3n]);
  assertThrows(() => readHeaderDict(text, 3), TypeError);
});

Deno.test("readHeaderDict() messages show the header's values as Python does", () => {
  assertThrows(
    () => readHeaderDict(`{${F4}, 'shape': (2.0, 3.0)}`, 1),
    TypeError,
    "shape (2.0, 3.0) is not a tuple of integers",
  );
  assertThrows(
    () => readHeaderDict(`{${F4}, 'shape': (2, 3), 'x': 1}`, 1),
    TypeError,
    "not 'descr', 'fortran_order', 'shape', 'x'",
  );
  assertEquals(pyRepr(new PyTuple([7n])), "(7,)");
  assertEquals(pyRepr(new Map([["a", [true, null]]])), "{'a': [True, None]}");
});
