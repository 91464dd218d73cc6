/**
 * The mapping between `VarType.Type` numbers in a program and the tensor
 * element types of `kernels/`. The numbers are fixed by docs/architecture.md §2.
 *
 * @module
 */
import { VarType_Type } from "../../gen/rill/v1/framework_pb.ts";
import type { DType } from "../../kernels/dtype.ts";

const CODE_TO_DTYPE: ReadonlyMap<number, DType> = new Map<number, DType>([
  [VarType_Type.BOOL, "bool"],
  [VarType_Type.INT16, "int16"],
  [VarType_Type.INT32, "int32"],
  [VarType_Type.INT64, "int64"],
  [VarType_Type.FP16, "float16"],
  [VarType_Type.FP32, "float32"],
  [VarType_Type.FP64, "float64"],
  [VarType_Type.UINT8, "uint8"],
  [VarType_Type.INT8, "int8"],
]);

const DTYPE_TO_CODE: ReadonlyMap<DType, VarType_Type> = new Map(
  [...CODE_TO_DTYPE].map(([code, dtype]) => [dtype, code]),
);

/**
 * The element type a `VarType.Type` number names, or `undefined` when the
 * number is not an element type (LOD_TENSOR, CHANNEL, ...).
 *
 * @param code A `VarType.Type` number.
 * @returns The dtype, or `undefined`.
 *
 * @example Usage
 * ```ts
 * import { dtypeOfCode } from "./dtype_codes.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(dtypeOfCode(5), "float32");
 * assertEquals(dtypeOfCode(7), undefined);
 * ```
 */
export function dtypeOfCode(code: number): DType | undefined {
  return CODE_TO_DTYPE.get(code);
}

/**
 * The `VarType.Type` number of an element type.
 *
 * @param dtype A tensor element type.
 * @returns Its number in programs.
 *
 * @example Usage
 * ```ts
 * import { codeOfDType } from "./dtype_codes.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(codeOfDType("int64"), 3);
 * ```
 */
export function codeOfDType(dtype: DType): VarType_Type {
  const code = DTYPE_TO_CODE.get(dtype);
  if (code === undefined) throw new RangeError(`dtype "${dtype}" has no code`);
  return code;
}

/**
 * The name of a `VarType.Type` number as the proto spells it (`FP32`), or
 * the number itself when it names nothing.
 *
 * @param code A `VarType.Type` number.
 * @returns Its name.
 *
 * @example Usage
 * ```ts
 * import { typeName } from "./dtype_codes.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(typeName(16), "CHANNEL");
 * ```
 */
export function typeName(code: number): string {
  return VarType_Type[code] ?? String(code);
}
