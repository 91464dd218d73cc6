/**
 * A variable as validation sees it: its declaration (a `VarDesc`), what the
 * ops before the one being checked wrote into it, and whether an op's
 * result fits the declaration (validate.ts).
 *
 * @module
 */
import type { VarDesc } from "../../gen/rill/v1/framework_pb.ts";
import type { InferredType, VarInfo } from "../core/op_def.ts";
import { varInfoOf, varKindOf } from "../core/var_info.ts";

/**
 * Throws when an output's declared shape cannot hold what the op makes:
 * a known dimension differs, or two fully known shapes differ in rank.
 * Unknown (-1) dimensions and undeclared shapes match anything, and a
 * rank-0 result fits a variable declared [1].
 */
export function checkDeclaredShape(
  slot: string,
  declared: VarInfo,
  made: readonly number[] | undefined,
): void {
  const want = declared.shape;
  if (want === undefined || made === undefined) return;
  // Fluid declares scalars as [1]; a rank-0 result fits them.
  if (isScalarShape(want) && isScalarShape(made)) return;
  const differs = want.length === made.length
    ? knownDimsDiffer(want, made)
    : isKnownShape(want) && isKnownShape(made);
  if (differs) {
    throw new RangeError(
      `output "${slot}": variable "${declared.name}" is declared [${
        want.join(", ")
      }] but the op makes [${made.join(", ")}]`,
    );
  }
}

/**
 * Throws when a channel variable is declared to carry one element type and
 * the op makes a channel of another. A declaration of any tensor, or a
 * channel of any tensor, matches anything.
 */
export function checkDeclaredElementType(
  slot: string,
  declared: VarInfo,
  made: VarInfo["dtype"],
): void {
  if (declared.dtype === undefined || made === undefined) return;
  if (declared.dtype !== made) {
    throw new TypeError(
      `output "${slot}": variable "${declared.name}" is declared a channel of ${declared.dtype} but the op makes a channel of ${made}`,
    );
  }
}

function isKnownShape(shape: readonly number[]): boolean {
  for (const d of shape) if (d < 0) return false;
  return true;
}

function isScalarShape(shape: readonly number[]): boolean {
  return shape.length === 0 || (shape.length === 1 && shape[0] === 1);
}

// Two shapes of one rank differ where both know a dimension.
function knownDimsDiffer(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) {
    if (a[i] >= 0 && b[i] >= 0 && a[i] !== b[i]) return true;
  }
  return false;
}

/**
 * A variable's declaration, its kind, and the static type ops see when they
 * read it, alone in a list: what `inputs(slot)` returns for a slot naming
 * one variable.
 *
 * Before any op writes the variable that type is its declaration. After a
 * write it is what the writer's shape rule made, so a variable declared
 * `[-1]` that an op fills with a `[2, 3]` tensor reads as `[2, 3]`: declared
 * dims are what the program knew when it was built (Fluid's compile-time
 * shapes), and the runtime accepts any shape there. The declaration fills
 * in the dims the writer left unknown, and a writer that knows nothing
 * leaves the declaration.
 */
export class Declared {
  readonly desc: VarDesc;
  readonly kind: VarInfo["kind"];
  #declared: readonly [VarInfo] | undefined;
  #written: readonly [VarInfo] | undefined;

  constructor(desc: VarDesc) {
    this.desc = desc;
    this.kind = varKindOf(desc);
  }

  /** The declaration's type. */
  get declared(): VarInfo {
    return (this.#declared ??= [varInfoOf(this.desc)])[0];
  }

  /** The type a read sees now. */
  get infos(): readonly [VarInfo] {
    return this.#written ?? (this.#declared ??= [varInfoOf(this.desc)]);
  }

  /**
   * An op bound the variable to a new value of type `made` (`undefined`:
   * the op's rule says nothing of it).
   */
  wrote(made: InferredType | undefined): void {
    if (this.kind !== "tensor") return;
    if (made?.shape === undefined && made?.dtype === undefined) {
      this.#written = undefined;
      return;
    }
    const declared = this.declared;
    // Most writes make the declared type: reads then see the declaration,
    // and validation keeps no new type per op.
    if (
      (made.dtype === undefined || made.dtype === declared.dtype) &&
      (made.shape === undefined || sameShape(made.shape, declared.shape))
    ) {
      this.#written = undefined;
      return;
    }
    this.#written = [{
      name: declared.name,
      kind: "tensor",
      dtype: made.dtype ?? declared.dtype,
      shape: made.shape === undefined
        ? declared.shape
        : refinedShape(made.shape, declared.shape),
    }];
  }
}

function sameShape(
  a: readonly number[],
  b: readonly number[] | undefined,
): boolean {
  if (b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// The writer's shape, with the dims it left unknown taken from a
// declaration of the same rank.
function refinedShape(
  made: readonly number[],
  declared: readonly number[] | undefined,
): readonly number[] {
  if (declared === undefined || declared.length !== made.length) return made;
  if (isKnownShape(made)) return made;
  return made.map((d, i) => (d < 0 ? declared[i] : d));
}
